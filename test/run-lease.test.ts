import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stopOutsideLock } from './helpers/locks.js';
import { fixture, start } from './helpers/procs.js';
import { eventsIn, groupAlive, PID, runner, runnerBoard, takenOverWhileFrozen, tasks, until, WAIT_GO } from './helpers/runner.js';
import { bytesOf, read } from './helpers/tmp.js';

// mdclaim run and its claim's lease: frozen past it, the runner finds its
// task taken over and writes nothing; alive, it heartbeats past any reaper.

// The tests wait on leases and frozen processes, each on a board and runners of its own: they run at once.
describe.concurrent('mdclaim run and the lease', () => {
  it('stops the command and writes nothing when, frozen past its lease, the runner finds its task taken over', async () => {
    const { file, dir, env, pid } = runnerBoard('[] contested\n');
    const events = join(dir, 'a.jsonl');
    const r = runner(file, ['--by', 'r1', '--lease', '2s', '--events', events, '--', 'sh', '-c', `${PID}; ${WAIT_GO}`], { env: env('A') });
    const pgid = await pid('A');
    const { id, taken } = await takenOverWhileFrozen(r, file);
    const end = await r.done;
    expect(end.code).toBe(4);
    expect(end.stderr).toMatch(new RegExp(`^mdclaim: lost ${id} after \\S+: .*thief.*wrote nothing$`, 'm'));
    expect(groupAlive(pgid)).toBe(false);
    expect(bytesOf(file)).toEqual(taken);
    expect(eventsIn(events).map((e) => e.event)).not.toContain('done');
  });

  it('with the same --by, never heartbeats, finishes or releases the claim a second runner took over', async () => {
    const { file, dir, env, pid, go } = runnerBoard('[] contested\n');
    const aEvents = join(dir, 'a.jsonl');
    const script = `${PID}; ${WAIT_GO}; echo "$RUNNER" >> "$DIR/finished"`;
    const a = runner(file, ['--by', 'host', '--lease', '2s', '--events', aEvents, '--', 'sh', '-c', script], { env: env('A') });
    const aGroup = await pid('A');
    await stopOutsideLock(a.child.pid!, file);
    const b = runner(file, ['--by', 'host', '--lease', '2s', '--loop', '--max', '1', '--interval', '100ms', '--', 'sh', '-c', script], { env: env('B') });
    await pid('B'); // B took the lapsed claim over
    a.child.kill('SIGCONT');
    expect((await a.done).code).toBe(4);
    expect(groupAlive(aGroup)).toBe(false);
    const aWrote = eventsIn(aEvents).filter((e) => ['heartbeat', 'done', 'failed', 'released'].includes(e.event));
    // A may have beaten before it froze, never after B's claim.
    const bClaimedAt = (await tasks(file))[0]!.claimedAt!;
    expect(aWrote.every((e) => e.event === 'heartbeat' && String(e.claimedAt) < bClaimedAt)).toBe(true);
    expect((await tasks(file))[0]).toMatchObject({ status: 'claimed', by: 'host' });
    go();
    expect((await b.done).code).toBe(0);
    expect(read(join(dir, 'finished'))).toBe('B\n');
    expect((await tasks(file))[0]).toMatchObject({ status: 'done', by: 'host' });
  });

  it('keeps a command that outlives several leases from being reaped while it heartbeats', async () => {
    const { file, env, pid, go } = runnerBoard('[] long job\n');
    const reaper = start(fixture('reaper.mjs'), [file, '-', '20']);
    // The reaper loops until told to stop: stop it however the test ends.
    try {
      const r = runner(file, ['--by', 'r1', '--lease', '3s', '--', 'sh', '-c', `${PID}; ${WAIT_GO}`], { env: env('A') });
      await pid('A');
      const first = Date.parse((await tasks(file))[0]!.claimedAt!);
      // Watch the board until the claim has been renewed past three lease periods, seeing it held by r1 each time.
      await until('three lease periods', async () => {
        const t = (await tasks(file))[0]!;
        expect(t).toMatchObject({ status: 'claimed', by: 'r1' });
        return Date.parse(t.claimedAt!) >= first + 9000;
      }, 100);
      go();
      expect((await r.done).code).toBe(0);
      reaper.child.kill('SIGTERM');
      expect((await reaper.done).stdout).toBe('');
    } finally {
      // Whatever the test saw, the reaper does not outlive it.
      reaper.child.kill('SIGKILL');
    }
    expect((await tasks(file))[0]).toMatchObject({ status: 'done', by: 'r1' });
  });
});

