import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { groupAlive, groupMembers, PID, runner, runnerBoard, tasks, until, WAIT_GO } from './helpers/runner.js';
import { bytesOf, read } from './helpers/tmp.js';

// mdclaim run stopped by a signal, and SIGKILLed: the command's whole group
// goes, and the claim is released, failed or left for the reaper.

describe('mdclaim run and signals', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP (a closed terminal)', 129],
  ] as const)('on %s passes SIGTERM to the whole process group, releases the task and exits %i', async (what, code) => {
    const signal = what.split(' ')[0] as NodeJS.Signals;
    const { file, env, pid } = runnerBoard('- [ ] long job\n');
    const before = bytesOf(file);
    // A pipeline: only a signal to the group reaches `sleep` and `cat`.
    const r = runner(file, ['--by', 'r1', '--', 'sh', '-c', `${PID}; sleep 60 | cat`], { env: env('A') });
    const pgid = await pid('A');
    expect(groupAlive(pgid)).toBe(true); // the shell leads a group of its own
    r.child.kill(signal);
    const end = await r.done;
    expect(end.code).toBe(code);
    expect(groupAlive(pgid)).toBe(false);
    expect(bytesOf(file)).toEqual(before); // claim + release gives a `[ ]` line back byte for byte
    expect(end.stderr).toMatch(new RegExp(`${signal}: stopping, waiting for 1 command`));
  });

  it('on SIGINT with --fail-on-signal marks the task failed and exits 130', async () => {
    const { file, env, pid } = runnerBoard('[] long job\n');
    // Node dies of SIGINT at any point once it has written its pid (a shell may hold a SIGINT pending while it forks).
    const ready = 'require("fs").writeFileSync(process.env.DIR + "/A.pid", process.pid + "\\n"); setInterval(() => {}, 1000)';
    const r = runner(file, ['--by', 'r1', '--fail-on-signal', '--', process.execPath, '-e', ready], { env: env('A') });
    const pgid = await pid('A');
    r.child.kill('SIGINT');
    expect((await r.done).code).toBe(130);
    expect(groupAlive(pgid)).toBe(false);
    expect((await tasks(file))[0]).toMatchObject({ status: 'failed', by: 'r1', reason: 'stopped by SIGINT' });
  });

  it('kills a command that ignores SIGTERM after --grace, and still releases', async () => {
    const { file, env, pid } = runnerBoard('[] stubborn\n');
    const r = runner(file, ['--by', 'r1', '--grace', '1s', '--', 'sh', '-c', `trap "" TERM; ${PID}; while :; do sleep 0.05; done`], { env: env('A') });
    const pgid = await pid('A');
    r.child.kill('SIGTERM');
    expect((await r.done).code).toBe(143);
    expect(groupAlive(pgid)).toBe(false);
    expect((await tasks(file))[0]!.status).toBe('open');
  });

  it('kills at once on a second signal, and still releases', async () => {
    const { file, env, pid } = runnerBoard('[] stubborn\n');
    // The grace outlasts the test: only the second signal can end the command in time.
    const r = runner(file, ['--by', 'r1', '--grace', '1h', '--', 'sh', '-c', `trap "" TERM; ${PID}; while :; do sleep 0.05; done`], { env: env('A') });
    const pgid = await pid('A');
    r.child.kill('SIGTERM');
    await until('the runner to be stopping', () => r.err().includes('SIGTERM: stopping'));
    expect(groupAlive(pgid)).toBe(true);
    r.child.kill('SIGTERM');
    expect((await r.done).code).toBe(143);
    expect(groupAlive(pgid)).toBe(false);
    expect((await tasks(file))[0]!.status).toBe('open');
  });
});

describe('mdclaim run when the runner is SIGKILLed', () => {
  // A pipeline, so the group has members beyond its leader; `trap "" TERM` is inherited by all of them.
  const finish = `{ ${WAIT_GO}; echo "$RUNNER" >> "$DIR/finished"; } | cat`;
  it.each([
    ['stops the whole group of a `sh -c` pipeline', `${PID}; ${finish}`, []],
    ['kills, after --grace, a group that ignores SIGTERM', `trap "" TERM; ${PID}; ${finish}`, ['--grace', '1s']],
  ])('%s, leaves the claim for the reaper, and another runner then completes the task', async (_, script, grace) => {
    const { file, dir, env, pid, go } = runnerBoard('[] fragile\n');
    const a = runner(file, ['--by', 'r1', '--lease', '2s', ...grace, '--', 'sh', '-c', script], { env: env('A') });
    const aGroup = await pid('A');
    await until('the pipeline to run', () => groupMembers(aGroup) >= 3);
    a.child.kill('SIGKILL');
    await a.exited;
    // No one is left to heartbeat the claim, so nothing may go on working on it.
    await until('the group to end', () => !groupAlive(aGroup));
    expect((await tasks(file))[0]).toMatchObject({ status: 'claimed', by: 'r1' });
    await until('the reaper to reopen it', () => /^reopened /m.test(mdclaim(['reap', '--file', file]).stdout), 100);
    go();
    const b = await runner(file, ['--by', 'r2', '--', 'sh', '-c', finish], { env: env('B') }).done;
    expect(b.code).toBe(0);
    expect((await tasks(file))[0]).toMatchObject({ status: 'done', by: 'r2' });
    expect(read(join(dir, 'finished'))).toBe('B\n');
  });
});

