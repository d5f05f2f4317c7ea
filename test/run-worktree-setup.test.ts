import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { repo } from './helpers/git.js';
import { stopOutsideLock } from './helpers/locks.js';
import { groupAlive, pidIn, runner, until } from './helpers/runner.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// --setup is part of the task: in a process group of its own that the runner's signals, its watchdog and a lost claim stop.

/** A setup that says it started ($LOG), writes its pid (the group's id) to $SCRATCH/$RUNNER.setup, and runs until $SCRATCH/go exists. */
const SETUP = 'echo "start $RUNNER" >> "$SCRATCH/log"; echo $$ > "$SCRATCH/$RUNNER.setup"; while [ ! -e "$SCRATCH/go" ]; do sleep 0.05; done; echo "end $RUNNER" >> "$SCRATCH/log"';

describe('run --worktree --setup and the life of the task', () => {
  it('takes a SIGKILLed runner\'s setup with it', async () => {
    const r = repo();
    const file = boardFile('## Git Worktree api\n- [ ] build it\n');
    const run = runner(file, ['--worktree', '--setup', SETUP, '--grace', '1s', '--', 'true'], { cwd: r.dir, env: { ...r.env, SCRATCH: r.scratch, RUNNER: 'r1' } });
    const pgid = await pidIn(join(r.scratch, 'r1.setup'));
    run.child.kill('SIGKILL');
    await run.done;
    await until('the setup to be stopped', () => !groupAlive(pgid));
  });

  it('ends on two SIGTERMs during a setup that ignores the first, and gives the claim back', async () => {
    const r = repo();
    const file = boardFile('## Git Worktree api\n- [ ] build it\n');
    const before = bytesOf(file);
    const run = runner(file, ['--worktree', '--setup', `trap '' TERM; ${SETUP}`, '--grace', '1h', '--', 'true'], { cwd: r.dir, env: { ...r.env, SCRATCH: r.scratch, RUNNER: 'r1' } });
    const pgid = await pidIn(join(r.scratch, 'r1.setup'));
    run.child.kill('SIGTERM');
    await until('the first signal to be taken', () => run.err().includes('stopping'));
    run.child.kill('SIGTERM');
    const end = await run.done;
    expect(end.code).toBe(143);
    expect(groupAlive(pgid)).toBe(false);
    expect(bytesOf(file)).toEqual(before);
  });

  it('stops the setup of a runner that was frozen past its lease once it learns, and the next holder waits for it before its own', async () => {
    const r = repo();
    const file = boardFile('## Git Worktree api\n- [ ] build it\n');
    const args = (by: string, ...more: string[]) => ['--worktree', '--setup', SETUP, '--lease', '2s', ...more, '--by', by, '--', 'true'];
    const first = runner(file, args('r1'), { cwd: r.dir, env: { ...r.env, SCRATCH: r.scratch, RUNNER: 'r1' } });
    const pgid = await pidIn(join(r.scratch, 'r1.setup'));
    await stopOutsideLock(first.child.pid!, file);
    const second = runner(file, args('r2', '--until-settled', '--interval', '100ms'), { cwd: r.dir, env: { ...r.env, SCRATCH: r.scratch, RUNNER: 'r2' } });
    await until('the second runner to wait for the first setup', () => second.err().includes(`waits for the setup an earlier holder started in ${join(r.dir, 'trees', 'api')} (process group ${pgid}) to end`));
    expect((await openBoard(file).list())[0]).toMatchObject({ status: 'claimed', by: 'r2' });
    expect(readFileSync(join(r.scratch, 'log'), 'utf8')).toBe('start r1\n');
    first.child.kill('SIGCONT');
    const end = await first.done;
    expect(end.code).toBe(4);
    expect(groupAlive(pgid)).toBe(false);
    await until('the second setup to start', () => existsSync(join(r.scratch, 'r2.setup')));
    await pidIn(join(r.scratch, 'r2.setup'));
    writeFileSync(join(r.scratch, 'go'), '');
    expect((await second.done).code).toBe(0);
    expect(readFileSync(join(r.scratch, 'log'), 'utf8')).toBe('start r1\nstart r2\nend r2\n');
    expect((await openBoard(file).list())[0]).toMatchObject({ status: 'done', by: 'r2' });
  });
});
