import { realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A project's `npm install mdclaim` puts `mdclaim` in node_modules/.bin, which
// is on no PATH but npx's and npm scripts'. A command `run` starts, calling
// `mdclaim done …` itself, must reach the very install that runs it.

/**
 * The directory holding an `mdclaim` that is this install's: the one it was
 * called from (node_modules/.bin, a global bin), else the node_modules/.bin
 * beside this package. Undefined when there is none (a checkout run as
 * `node dist/cli.cjs`).
 */
export function ownBinDir(calledAs: string | undefined = process.argv[1]): string | undefined {
  const self = real(join(packageRoot(), 'bin', 'mdclaim.cjs'));
  if (self === undefined) return undefined;
  const candidates = [calledAs === undefined ? undefined : dirname(calledAs), join(packageRoot(), '..', '.bin'), join(packageRoot(), '..', '..', '.bin')];
  return candidates.find((dir) => dir !== undefined && real(join(dir, 'mdclaim')) === self);
}

/** `env` with this install's `mdclaim` first on its PATH (the same env when there is none to add). */
export function withOwnBin(env: NodeJS.ProcessEnv, dir = ownBinDir()): NodeJS.ProcessEnv {
  if (dir === undefined) return env;
  const path = env['PATH'];
  return { ...env, PATH: path ? `${dir}${delimiter}${path}` : dir };
}

/** The package's root: dist/cli.cjs is bundled one level below it, dist/cli/own-bin.js two. */
function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return real(join(here, '..', 'bin', 'mdclaim.cjs')) === undefined ? join(here, '..', '..') : join(here, '..');
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
