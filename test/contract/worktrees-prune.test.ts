import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { repo } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { spawnSync } from 'node:child_process';
import { describeKinds } from './kinds.js';

// `mdclaim worktrees` and `worktrees prune` over worktrees a real `run --worktree` made in a real repository.

const BOARD = `## Git Worktree unmerged
[] u1 {go}

## Git Worktree dirty
[] d1 {go}

## Git Worktree open
[] o1 {go}
[] o2

## Git Worktree squashed
[] s1 {go}
`;

// Commits a file named by the task; in the "dirty" worktree it then leaves a file uncommitted.
const COMMAND = `
echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt" && git add . && git commit -q -m "$MDCLAIM_TASK_TEXT" || exit 1
[ "$MDCLAIM_BRANCH" != dirty ] || echo draft > draft.txt
`;

function cli(args: string[], cwd: string, env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describeKinds('mdclaim worktrees on the $name board', (kind) => {
  it('lists each worktree with its state and tasks; prune removes only the squash-merged one and says why it keeps each other', async () => {
    const { location } = await kind.make(BOARD);
    const r = repo();
    const ran = await runner(location, ['--worktree', '--tag', 'go', '--concurrency', '4', '--until-settled', '--interval', '100ms', '--by', 'r1', '--', 'sh', '-c', COMMAND], { cwd: r.dir, env: r.env }).done;
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/left 1 uncommitted change in .*\/trees\/dirty: kept/);
    // The squashed branch lands on main as one new commit: no ancestry links it to main.
    expect(r.git(['merge', '--squash', 'squashed']).status).toBe(0);
    expect(r.git(['commit', '-q', '-m', 'squash']).status).toBe(0);
    expect(r.git(['merge-base', '--is-ancestor', 'squashed', 'main']).status).toBe(1);

    const listed = cli(['worktrees', '--file', location, '--json'], r.dir, r.env);
    expect(listed.status).toBe(0);
    const byName = Object.fromEntries((JSON.parse(listed.stdout).worktrees as { name: string }[]).map((w) => [w.name, w]));
    expect(Object.keys(byName)).toEqual(['dirty', 'open', 'squashed', 'unmerged']);
    expect(byName['dirty']).toMatchObject({ branch: 'dirty', baseBranch: 'main', ahead: 1, changes: 1, merged: false, tasks: { done: [expect.any(String)] } });
    expect(byName['open']).toMatchObject({ changes: 0, merged: false, tasks: { open: [expect.any(String)], done: [expect.any(String)] } });
    expect(byName['squashed']).toMatchObject({ ahead: 1, changes: 0, merged: true });
    expect(byName['unmerged']).toMatchObject({ ahead: 1, changes: 0, merged: false });

    const dry = cli(['worktrees', 'prune', '--dry-run', '--file', location], r.dir, r.env);
    expect(dry.stdout).toContain('would remove squashed');
    expect(existsSync(join(r.dir, 'trees', 'squashed'))).toBe(true);

    const pruned = cli(['worktrees', 'prune', '--file', location], r.dir, r.env);
    expect(pruned.status).toBe(0);
    expect(pruned.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'kept dirty: 1 uncommitted or untracked change',
      expect.stringMatching(/^kept open: task \w+ could still run here: it is open$/),
      'kept unmerged: its changes are not in main (1 commit ahead of its base)',
      expect.stringMatching(/^removed squashed \(.*\/trees\/squashed, branch squashed\)$/),
    ]);
    expect(existsSync(join(r.dir, 'trees', 'squashed'))).toBe(false);
    expect(r.git(['rev-parse', '--verify', '--quiet', 'refs/heads/squashed']).status).toBe(1);
    for (const kept of ['dirty', 'open', 'unmerged']) expect(r.git(['rev-parse', '--verify', '--quiet', `refs/heads/${kept}`]).status).toBe(0);
    expect(readFileSync(join(r.dir, 'trees', 'dirty', 'draft.txt'), 'utf8')).toBe('draft\n');
  });
});
