import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOut } from '../git.js';
import { dirtyPaths } from './task.js';

/**
 * How many paths in the worktree at `dir` hold work no commit has: what
 * `git status` shows (changed, staged, untracked; ignored files such as
 * `node_modules` are not counted), and the edits git was told not to look at
 * (hiddenEdits), which `git status` never shows.
 */
export async function uncommittedPaths(dir: string): Promise<number> {
  return (await dirtyPaths(dir)) + (await hiddenEdits(dir)).length;
}

/**
 * The files marked skip-worktree or assume-unchanged (`git ls-files -v`
 * shows them as `S` or in lower case) whose content differs from the index:
 * edits `git status` hides, which removing the worktree would lose. A
 * skip-worktree file that is absent is a sparse checkout's, not a change; an
 * assume-unchanged one that is absent was deleted.
 */
export async function hiddenEdits(dir: string): Promise<string[]> {
  // `S 100644 <blob> 0\t<path>`: the tag, the staged mode and blob, the stage, the path.
  const marked = (await gitOut(dir, ['ls-files', '-s', '-v', '-z']))
    .split('\0')
    .map((l) => /^(S|[a-z]) (\d+) ([0-9a-f]+) \d\t(.*)$/s.exec(l))
    .filter((m) => m !== null)
    .map(([, tag, mode, blob, path]) => ({ sparse: tag === 'S', mode: mode!, blob: blob!, path: path! }));
  const edited = marked.filter((f) => absent(join(dir, f.path)) && !f.sparse).map((f) => f.path);
  const present = marked.filter((f) => !absent(join(dir, f.path)));
  const links = present.filter((f) => f.mode === '120000');
  // A submodule's work is its own repository's to keep.
  const files = present.filter((f) => f.mode !== '120000' && f.mode !== '160000');
  for (const f of links) {
    const now = lstatSync(join(dir, f.path)).isSymbolicLink() ? readlinkSync(join(dir, f.path)) : undefined;
    const blob = now === undefined ? undefined : await git(dir, ['cat-file', 'blob', f.blob]);
    // A link whose staged target git cannot read counts as edited: kept, never taken for clean.
    if (blob === undefined || blob.code !== 0 || blob.out !== now) edited.push(f.path);
  }
  if (files.length > 0) {
    // One hash a line, in order, with the clean filters the index's blobs went through.
    const hashes = (await gitOut(dir, ['hash-object', '--', ...files.map((f) => f.path)])).split('\n');
    files.forEach((f, i) => hashes[i] !== f.blob && edited.push(f.path));
  }
  return edited;
}

function absent(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch {
    return true;
  }
}
