import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, mdclaim } from './helpers/cli.js';
import { track } from './helpers/procs.js';
import { groupAlive, PID, runner, runnerBoard, signalGroup, STRAGGLER, takenOverWhileFrozen, tasks, until, WAIT_GO } from './helpers/runner.js';
import { bytesOf, read } from './helpers/tmp.js';

// Each command leaves a straggler in its group that ignores SIGTERM and does
// not hold the runner's output: the pipes close long before it is gone.

const noTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at |Error:|node:internal/m);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('mdclaim run leaves nothing of a task running once its claim ends', () => {
  it.each([
    ['done', 'exit 0', 0, 'done'],
    ['failed', 'exit 3', 1, 'failed'],
  ])('when the command ends %s, what it left in its group is gone (SIGKILL after --grace) before the runner ends', async (_, end, code, status) => {
    const { file, env, pid } = runnerBoard('[] leaves a helper behind\n');
    const r = runner(file, ['--by', 'r1', '--grace', '1s', '--no-commit', '--', 'sh', '-c', `${PID}; ${STRAGGLER} ${end}`], { env: env('A') });
    const pgid = await pid('A');
    expect((await r.done).code).toBe(code);
    expect(groupAlive(pgid)).toBe(false);
    expect((await tasks(file))[0]).toMatchObject({ status, by: 'r1' });
  });

  it('on SIGTERM, releases the task only once the whole group, straggler included, is gone', async () => {
    const { file, env, pid } = runnerBoard('- [ ] long job\n');
    const before = bytesOf(file);
    const r = runner(file, ['--by', 'r1', '--grace', '1s', '--', 'sh', '-c', `${STRAGGLER} ${PID}; ${WAIT_GO}`], { env: env('A') });
    const pgid = await pid('A');
    await until('the straggler to start', () => spawnSync('pgrep', ['-g', String(pgid), 'sleep']).status === 0);
    r.child.kill('SIGTERM');
    expect((await r.done).code).toBe(143);
    expect(groupAlive(pgid)).toBe(false);
    expect(bytesOf(file)).toEqual(before);
  });

  it('when its claim is taken over, stops the whole group, straggler included, and writes nothing', async () => {
    const { file, env, pid } = runnerBoard('[] contested\n');
    const r = runner(file, ['--by', 'r1', '--lease', '2s', '--grace', '1s', '--', 'sh', '-c', `${STRAGGLER} ${PID}; ${WAIT_GO}`], { env: env('A') });
    const pgid = await pid('A');
    const { taken } = await takenOverWhileFrozen(r, file);
    expect((await r.done).code).toBe(4);
    expect(groupAlive(pgid)).toBe(false);
    expect(bytesOf(file)).toEqual(taken);
  });
});

describe('mdclaim run never starts a command on a claim it no longer holds', () => {
  it('frozen between the claim and the start past its lease, finds the task taken over and does not start the command', async () => {
    // The claimed event is longer than a pipe holds (64 KiB; the text stays under the 128 KiB an environment variable may hold):
    // writing it to a FIFO nobody reads stops the runner right after its claim.
    const { file, dir, env } = runnerBoard(`[] ${'x'.repeat(100_000)}\n`);
    const fifo = join(dir, 'events');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    cleanups.push(() => closeSync(reader));
    const r = runner(file, ['--by', 'r1', '--lease', '2s', '--events', fifo, '--', 'sh', '-c', `${PID}; ${WAIT_GO}`], { env: env('A') });
    const id = await until('the claim', async () => (await tasks(file))[0]!.status === 'claimed' && (await tasks(file))[0]!.id);
    r.child.kill('SIGSTOP');
    await until('the takeover', () => mdclaim(['claim', id, '--file', file, '--by', 'thief', '--lease', '1h']).status === 0, 100);
    const taken = bytesOf(file);
    track(spawn('sh', ['-c', 'exec cat > /dev/null < "$0"', fifo], { stdio: 'ignore' }));
    r.child.kill('SIGCONT');
    const end = await r.done;
    expect(end.code).toBe(4);
    expect(end.stderr).toMatch(new RegExp(`^mdclaim: lost ${id} after \\S+: .*thief.*wrote nothing$`, 'm'));
    expect(existsSync(join(dir, 'A.pid'))).toBe(false); // the command never ran
    expect(bytesOf(file)).toEqual(taken);
  });
});

describe('mdclaim run when its output goes away', () => {
  it('when the reader of its stdout leaves (`| head -1`), gives every task back and exits 141 without a trace', async () => {
    const { file, dir, env } = runnerBoard('- [ ] one\n- [ ] two\n');
    const before = bytesOf(file);
    cleanups.push(() => {
      for (const pid of existsSync(join(dir, 'pids')) ? read(join(dir, 'pids')).trim().split('\n') : []) signalGroup(Number(pid), 'SIGKILL');
    });
    const r = runner(file, ['--by', 'r1', '--concurrency', '2', '--', 'sh', '-c', 'echo $$ >> "$DIR/pids"; while :; do echo "$MDCLAIM_TASK_ID"; sleep 0.05; done'], { env: env('A') });
    await until('output', () => r.out().includes('\n'));
    r.child.stdout!.destroy();
    const end = await r.done;
    expect(end.code).toBe(141);
    noTrace(end.stderr);
    expect(end.stderr).toMatch(/stdout closed: stopping, waiting for 2 commands/);
    expect(bytesOf(file)).toEqual(before);
  });

  it('with an --events file on a full disk (/dev/full), says so once as error[IO] and goes on with the tasks', async () => {
    const { file } = runnerBoard('[] one\n[] two\n');
    const end = await runner(file, ['--by', 'r1', '--no-commit', '--until-settled', '--interval', '100ms', '--events', '/dev/full', '--', 'true']).done;
    expect(end.code).toBe(0);
    noTrace(end.stderr);
    expect(end.stderr.match(/^error\[IO\]: cannot write --events .*$/gm)).toEqual([expect.stringContaining('/dev/full')]);
    expect((await tasks(file)).map((t) => t.status)).toEqual(['done', 'done']);
  });

  it('with an --events file past the file size limit (ulimit -f), says so once as error[IO] and goes on with the tasks', async () => {
    const { file, dir } = runnerBoard('[] one\n[] two\n[] three\n[] four\n[] five\n');
    const events = join(dir, 'ev.jsonl');
    // One 512-byte block: the board fits, the events of five tasks do not.
    const r = spawnSync('sh', ['-c', 'ulimit -f 1; exec "$@"', 'sh', process.execPath, CLI, 'run', '--file', file, '--by', 'r1', '--no-commit', '--until-settled', '--interval', '100ms', '--events', events, '--', 'true'], { encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
    expect(r.status).toBe(0);
    noTrace(r.stderr);
    expect(r.stderr.match(/^error\[IO\]: cannot write --events .*$/gm)).toHaveLength(1);
    expect(JSON.parse(read(events).split('\n')[0]!)).toMatchObject({ event: 'start', by: 'r1' });
    expect((await tasks(file)).every((t) => t.status === 'done')).toBe(true);
  });
});
