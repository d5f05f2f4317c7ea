import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hiddenEdits, uncommittedPaths } from '../src/runner/worktree/changes.js';
import { repo } from './helpers/git.js';

// Work git status does not show, in a real repository: what removing a worktree would lose.

describe('uncommitted work a worktree holds', () => {
  it('counts edits to skip-worktree and assume-unchanged files, and a deleted assume-unchanged one; not a sparse checkout\'s absent file', async () => {
    const r = repo();
    for (const f of ['sparse.txt', 'skipped.txt', 'assumed.txt', 'gone.txt', 'same.txt']) writeFileSync(join(r.dir, f), `${f}\n`);
    expect(r.git(['add', '.']).status).toBe(0);
    expect(r.git(['commit', '-q', '-m', 'files']).status).toBe(0);
    r.git(['update-index', '--skip-worktree', 'sparse.txt', 'skipped.txt', 'same.txt']);
    r.git(['update-index', '--assume-unchanged', 'assumed.txt', 'gone.txt']);
    expect(await uncommittedPaths(r.dir)).toBe(0);

    rmSync(join(r.dir, 'sparse.txt')); // as a sparse checkout leaves it: not a change
    writeFileSync(join(r.dir, 'skipped.txt'), 'edited\n');
    writeFileSync(join(r.dir, 'assumed.txt'), 'edited\n');
    rmSync(join(r.dir, 'gone.txt'));
    expect(r.git(['status', '--porcelain']).out).toBe('');
    expect((await hiddenEdits(r.dir)).sort()).toEqual(['assumed.txt', 'gone.txt', 'skipped.txt']);
    writeFileSync(join(r.dir, 'new.txt'), 'untracked\n');
    expect(await uncommittedPaths(r.dir)).toBe(4);
  });
});
