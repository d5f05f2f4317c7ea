import { readFileSync } from 'node:fs';

/** mdclaim's version, from the package.json of the package this file ships in. */
export async function version(): Promise<string> {
  // dist/cli.cjs is bundled; dist/cli/version.js is not: the package root is one or two levels up.
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'mdclaim') return pkg.version;
    } catch {
      // not here
    }
  }
  return 'unknown';
}
