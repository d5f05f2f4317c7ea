import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repo } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// Sections whose name cannot be a worktree: passed over in one line each, the other sections' tasks run.

const COMMIT = 'echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt" && git add . && git commit -q -m "$MDCLAIM_TASK_TEXT"';

describeKinds('run --worktree and names git takes no branch as, on the $name board', (kind) => {
  it('passes over a section whose name cannot be a worktree, in one line, and runs the good section\'s tasks to the end', async () => {
    const { location, board, bytes } = await kind.make('## Git Worktree my feature\n[] spaced\n[⏰] spaced after\n\n## Git Worktree good\n[] good one\n[⏰] good two\n');
    const r = repo();
    const end = await runner(location, ['--worktree', '--until-settled', '--interval', '100ms', '--by', 'r1', '--', 'sh', '-c', COMMIT], { cwd: r.dir, env: r.env }).done;
    expect(end.stderr).not.toMatch(/error\[/);
    expect(end.code).toBe(0);
    expect(end.stderr.split('\n').filter((l) => l.startsWith('mdclaim: passed over'))).toEqual([expect.stringMatching(/^mdclaim: passed over \w+ "spaced": "my feature" cannot name a worktree and its branch .*: no worktree for it$/)]);
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'blocked', 'done', 'done']);
    expect(r.git(['rev-list', '--count', 'main..good']).out).toBe('2');
    expect((await bytes()).toString()).toContain('[] spaced\n[⏰] spaced after\n');
  });

  it('never makes a worktree named HEAD (git would run its task on no branch): passed over, nothing made', async () => {
    const { location, board } = await kind.make('## Git Worktree HEAD\n[] detached work\n');
    const r = repo();
    const end = await runner(location, ['--worktree', '--until-settled', '--interval', '100ms', '--by', 'r1', '--', 'sh', '-c', COMMIT], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toMatch(/^mdclaim: passed over \w+ "detached work": "HEAD" cannot name a worktree and its branch \(git takes no branch named so\): no worktree for it$/m);
    expect((await board.list()).map((t) => t.status)).toEqual(['open']);
    expect(existsSync(join(r.dir, 'trees', 'HEAD'))).toBe(false);
    expect(r.git(['worktree', 'list', '--porcelain']).out.match(/^worktree /gm)).toHaveLength(1);
  });
});
