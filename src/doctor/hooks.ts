import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { git } from '../runner/git.js';
import { finding, type Finding } from './finding.js';

/** The hooks mdclaim ships (examples/), what each does, and what it refuses when it cannot find mdclaim. */
const HOOKS = [
  { name: 'pre-commit', does: 'refuses a commit that touches a path another claim holds', without: 'every commit' },
  { name: 'pre-push', does: 'refuses a push made under a claim that is gone', without: 'every push made under a claim' },
] as const;
type Hook = (typeof HOOKS)[number];

/** The git hooks mdclaim ships, where installed: may git run them, and will they find mdclaim? */
export async function checkHooks(dir: string): Promise<Finding[]> {
  const r = await git(dir, ['rev-parse', '--show-toplevel', '--git-path', 'hooks', '--git-common-dir']);
  // No repository (or no git) is no failure here: there are no hooks to check, and the finding says so.
  if (r.code !== 0) return [finding('hooks', 'skip', `${dir} is not in a git repository: no hooks to check`)];
  const [top, hooksPath, common] = r.out.trim().split('\n') as [string, string, string];
  const hooks = resolve(dir, hooksPath);
  // In a worktree, the hook also finds the main checkout's mdclaim (as examples/pre-commit looks for it).
  const main = resolve(dir, common, '..');
  const installed = HOOKS.flatMap((hook) => {
    const file = join(hooks, hook.name);
    try {
      return [{ hook, file, text: readFileSync(file, 'utf8') }];
    } catch {
      return [];
    }
  });
  if (installed.length === 0) {
    const optional = HOOKS.map((h) => `node_modules/mdclaim/examples/${h.name} ${h.does}`).join('; ');
    return [finding('hooks', 'skip', `no ${HOOKS.map((h) => h.name).join(' or ')} hook (optional: ${optional})`)];
  }
  return installed.map(({ hook, file, text }) => checkHook(file, text, hook, top, main));
}

function checkHook(file: string, text: string, { name, without }: Hook, top: string, main: string): Finding {
  if (!text.includes('mdclaim')) return finding('hooks', 'skip', `${file} is not mdclaim's`);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return finding('hooks', 'fail', `${file} is not executable: git skips it`, `chmod +x ${file}`);
  }
  const local = [top, main].map((d) => join(d, 'node_modules', '.bin', 'mdclaim')).find(executable);
  if (local) return finding('hooks', 'ok', `${name} installed; it finds ${local}`);
  const onPath = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'mdclaim')).find(executable);
  if (onPath) return finding('hooks', 'ok', `${name} installed; it finds ${onPath} on PATH`);
  return finding('hooks', 'fail', `${name} installed, but finds no mdclaim in ${join(top, 'node_modules', '.bin')} nor on PATH: it would refuse ${without}`, `npm install mdclaim in ${top}`);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
