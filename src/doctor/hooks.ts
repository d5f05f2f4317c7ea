import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { git } from '../runner/git.js';
import { finding, type Finding } from './finding.js';

const HOOKS = ['pre-commit'] as const;

/** The git hooks mdclaim ships, where installed: may git run them, and will they find mdclaim? */
export async function checkHooks(dir: string): Promise<Finding[]> {
  const r = await git(dir, ['rev-parse', '--show-toplevel', '--git-path', 'hooks', '--git-common-dir']);
  // No repository (or no git) is no failure here: there are no hooks to check, and the finding says so.
  if (r.code !== 0) return [finding('hooks', 'skip', `${dir} is not in a git repository: no hooks to check`)];
  const [top, hooksPath, common] = r.out.trim().split('\n') as [string, string, string];
  const hooks = resolve(dir, hooksPath);
  // In a worktree, the hook also finds the main checkout's mdclaim (as examples/pre-commit looks for it).
  const main = resolve(dir, common, '..');
  return HOOKS.map((name) => checkHook(join(hooks, name), name, top, main));
}

function checkHook(file: string, name: string, top: string, main: string): Finding {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return finding('hooks', 'skip', `no ${name} hook (optional: node_modules/mdclaim/examples/${name} refuses a commit that touches a path another claim holds)`);
  }
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
  return finding('hooks', 'fail', `${name} installed, but finds no mdclaim in ${join(top, 'node_modules', '.bin')} nor on PATH: it would refuse every commit`, `npm install mdclaim in ${top}`);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
