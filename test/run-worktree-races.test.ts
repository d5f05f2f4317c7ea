import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { repo } from './helpers/git.js';
import { CLI } from './helpers/cli.js';
import { runner, until } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// Worktrees made at once, by real runners in one real repository: git's own locks and a race for one worktree fail no task.

const COMMIT = 'echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt" && git add . && git commit -q -m "$MDCLAIM_TASK_TEXT"';
const args = (by: string) => ['--worktree', '--concurrency', '8', '--until-settled', '--interval', '100ms', '--by', by, '--', 'sh', '-c', COMMIT];

describe('run --worktree making worktrees at once', () => {
  it('makes twelve worktrees side by side from two runners, and fails no task for git\'s lock files', async () => {
    const file = boardFile(Array.from({ length: 12 }, (_, i) => `## Git Worktree w${i}\n[] task ${i}\n`).join('\n'));
    const r = repo();
    const ends = await Promise.all(['r1', 'r2'].map((by) => runner(file, args(by), { cwd: r.dir, env: r.env }).done));
    for (const end of ends) expect(end.code, end.stderr).toBe(0);
    const tasks = await openBoard(file).list();
    expect(tasks.map((t) => t.status)).toEqual(Array(12).fill('done'));
    expect(r.git(['worktree', 'list', '--porcelain']).out.match(/^worktree /gm)).toHaveLength(13);
  });

  it('ends two runners racing to make one worktree (two boards, one repository) in that one worktree, neither failing', async () => {
    const r = repo();
    for (let round = 0; round < 3; round++) {
      const files = ['a', 'b'].map((who) => boardFile(`## Git Worktree race${round}\n[] ${who} ${round}\n`));
      // Two boards hold no claim in common, so both commands run in the worktree at once: they only write a file each.
      const write = ['--worktree', '--until-settled', '--interval', '100ms', '--', 'sh', '-c', 'echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt"'];
      const ends = await Promise.all(files.map((file) => runner(file, write, { cwd: r.dir, env: r.env }).done));
      for (const end of ends) expect(end.code, end.stderr).toBe(0);
      const worktree = join(r.dir, 'trees', `race${round}`);
      for (const file of files) {
        const [task] = await openBoard(file).list();
        expect(task).toMatchObject({ status: 'done' });
        expect(readFileSync(join(worktree, `${task!.id}.txt`), 'utf8')).toBe(`${task!.text}\n`);
      }
      expect(r.git(['worktree', 'list', '--porcelain']).out.split('\n').filter((l) => l === `branch refs/heads/race${round}`)).toHaveLength(1);
    }
  });

  it('refuses a worktree path that is something else: the task given back, one line naming it, exit 1', async () => {
    const file = boardFile('## Git Worktree api\n[] build it\n');
    const r = repo();
    mkdirSync(join(r.dir, 'trees', 'api'), { recursive: true });
    writeFileSync(join(r.dir, 'trees', 'api', 'notes.txt'), 'mine\n');
    const before = (await openBoard(file).list())[0];
    const end = await runner(file, args('r1'), { cwd: r.dir, env: r.env }).done;
    expect(end.code).toBe(1);
    expect(end.stderr.split('\n').filter((l) => l.startsWith('error['))).toEqual([
      `error[WORKTREE]: ${join(r.dir, 'trees', 'api')} exists and is not the worktree of branch api; the task was given back`,
    ]);
    expect((await openBoard(file).list())[0]).toEqual(before);
  });

  it('refuses a branch checked out in another directory, naming it, and gives the task back', async () => {
    const file = boardFile('## Git Worktree api\n[] build it\n');
    const r = repo();
    const elsewhere = join(r.scratch, 'api-by-hand');
    expect(r.git(['worktree', 'add', '-q', '-b', 'api', elsewhere]).status).toBe(0);
    const end = await runner(file, args('r1'), { cwd: r.dir, env: r.env }).done;
    expect(end.code).toBe(1);
    expect(end.stderr).toContain(`error[WORKTREE]: branch api is checked out in ${elsewhere}; the task was given back\n`);
    expect((await openBoard(file).list())[0]).toMatchObject({ status: 'open' });
  });

  it('never has a worktree a live claim holds pruned, even one with nothing in it yet', async () => {
    const file = boardFile('## Git Worktree api\n[] build it\n');
    const r = repo();
    const go = join(r.scratch, 'go');
    const run = runner(file, ['--worktree', '--by', 'r1', '--', 'sh', '-c', `touch started; while [ ! -e "${go}" ]; do sleep 0.05; done`], { cwd: r.dir, env: r.env });
    await until('the command to start', () => existsSync(join(r.dir, 'trees', 'api', 'started')));
    // Its branch is its base (merged by content), and "started" is its only change: held by the claim all the same.
    rmSync(join(r.dir, 'trees', 'api', 'started'));
    const pruned = spawnSync(process.execPath, [CLI, 'worktrees', 'prune', '--file', file], { cwd: r.dir, encoding: 'utf8' });
    expect(pruned.stdout).toMatch(/^kept api: task \w+ is claimed by r1\n$/);
    expect(existsSync(join(r.dir, 'trees', 'api'))).toBe(true);
    writeFileSync(go, '');
    expect((await run.done).code).toBe(0);
  });
});
