import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard, runTasks } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { repo } from './helpers/git.js';
import { runner } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// --setup, --commit and the options that only mean something with --worktree, in a real repository.

const BOARD = '## Git Worktree api\n[] first\n[⏰] second\n';

describe('run --worktree options', () => {
  it('runs --setup once in a new worktree, before its first task only, with the worktree in its environment', async () => {
    const file = boardFile(BOARD);
    const r = repo();
    const log = join(r.scratch, 'setup.log');
    const setup = `echo "$MDCLAIM_BRANCH $(pwd)" >> "${log}"`;
    const end = await runner(file, ['--worktree', '--setup', setup, '--until-settled', '--interval', '100ms', '--', 'true'], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe(`api ${join(r.dir, 'trees', 'api')}\n`);
  });

  it('with --commit, commits what the command left, the task text the message, and records that commit; without it, keeps and reports it', async () => {
    const r = repo();
    const leave = ['sh', '-c', 'echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt"'];
    const kept = await runner(boardFile('## Git Worktree kept\n[] left as it is\n'), ['--worktree', '--', ...leave], { cwd: r.dir, env: r.env }).done;
    expect(kept.code).toBe(0);
    expect(kept.stderr).toMatch(/left 1 uncommitted change in .*\/trees\/kept: kept, not in the commit recorded/);
    expect(r.git(['status', '--porcelain'], join(r.dir, 'trees', 'kept')).out).toMatch(/^\?\? \w+\.txt$/);

    const file = boardFile('## Git Worktree made\n[] Write the notes\n');
    const committed = await runner(file, ['--worktree', '--commit', '--', ...leave], { cwd: r.dir, env: r.env }).done;
    expect(committed.code, committed.stderr).toBe(0);
    const [task] = await openBoard(file).list();
    expect(r.git(['log', '-1', '--format=%s', task!.commit!]).out).toBe('Write the notes');
    expect(r.git(['show', `${task!.commit}:${task!.id}.txt`]).out).toBe('Write the notes');
    expect(r.git(['status', '--porcelain'], join(r.dir, 'trees', 'made')).out).toBe('');
  });

  it('refuses --trees, --base, --setup and --commit without --worktree, and bad worktree options, before anything is claimed', async () => {
    const file = boardFile(BOARD);
    for (const flag of [['--trees', 'x'], ['--base', 'main'], ['--setup', 'true'], ['--commit']]) {
      expect(mdclaim(['run', '--file', file, ...flag, '--', 'true'])).toMatchObject({ status: 2, stderr: `error[USAGE]: ${flag[0]} needs --worktree\n` });
    }
    const board = openBoard(file);
    await expect(runTasks(board, { command: ['true'], worktree: { setup: '' } })).rejects.toThrow('worktree.setup must be a non-empty string, got ""');
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'blocked']);
  });

  it('refuses a run outside any git repository in one line, claiming nothing', async () => {
    const file = boardFile(BOARD);
    const end = await runner(file, ['--worktree', '--', 'true'], { cwd: '/' }).done;
    expect(end.code).toBe(1);
    expect(end.stderr).toMatch(/^error\[WORKTREE\]: \/ is in no git repository \(.*\): --worktree needs one$/m);
    expect((await openBoard(file).list()).map((t) => t.status)).toEqual(['open', 'blocked']);
  });
});
