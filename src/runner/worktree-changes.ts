import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOut } from './git.js';

/**
 * How many paths in the worktree at `dir` hold work no commit has: what
 * `git status` shows (changed, staged, untracked; ignored files such as
 * `node_modules` are not counted), and the edits git was told not to look at
 * (hiddenEdits), which `git status` never shows.
 */
export async function uncommittedPaths(dir: string): Promise<number> {
  const shown = await gitOut(dir, ['status', '--porcelain', '--untracked-files=all']);
  return (shown === '' ? 0 : shown.split('\n').length) + (await hiddenEdits(dir)).length;
}

/**
 * The files marked skip-worktree or assume-unchanged (`git ls-files -v`
 * shows them as `S` or in lower case) whose content differs from the index:
 * edits `git status` hides, which removing the worktree would lose. A
 * skip-worktree file that is absent is a sparse checkout's, not a change; an
 * assume-unchanged one that is absent was deleted.
 */
export async function hiddenEdits(dir: string): Promise<string[]> {
  const marked = (await gitOut(dir, ['ls-files', '-v', '-z'])).split('\0').filter((l) => /^(S|[a-z]) /.test(l));
  if (marked.length === 0) return [];
  const edited: string[] = [];
  for (const line of marked) {
    const path = line.slice(2);
    if (absent(join(dir, path))) {
      if (!line.startsWith('S ')) edited.push(path);
      continue;
    }
    const [mode, blob] = (await gitOut(dir, ['ls-files', '-s', '-z', '--', path])).split(/\s+/) as [string, string];
    if (!(await sameAsStaged(dir, path, mode, blob))) edited.push(path);
  }
  return edited;
}

async function sameAsStaged(dir: string, path: string, mode: string, blob: string): Promise<boolean> {
  const full = join(dir, path);
  if (mode === '120000') {
    const link = lstatSync(full).isSymbolicLink() ? readlinkSync(full) : undefined;
    return link !== undefined && link === (await git(dir, ['cat-file', 'blob', blob])).out;
  }
  if (mode === '160000') return true; // a submodule: its own repository keeps its work
  const hashed = await git(dir, ['hash-object', '--', path]);
  return hashed.code === 0 && hashed.out.trim() === blob;
}

function absent(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch {
    return true;
  }
}
