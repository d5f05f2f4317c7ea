import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBoard, runTasks, type RunEvent, type RunnerBoard } from '../src/index.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { mdclaim } from './helpers/cli.js';
import { groupAlive, pidIn, signalGroup, until } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// Durations past setTimeout's longest delay (2^31-1 ms, about 24.8 days) are
// accepted; each must be waited out, not fired at once. The runner and its
// commands are real; the board is a real file board that counts its calls.
const WAIT_GO = 'echo $$ > "$DIR/cmd.pid"; trap "" TERM; while [ ! -e "$DIR/go" ]; do sleep 0.05; done';

function counting(file: string): RunnerBoard & { calls: Record<string, number> } {
  const board = openBoard(file);
  const calls: Record<string, number> = { next: 0, heartbeat: 0 };
  return {
    calls,
    location: board.location,
    handOff: board.handOff,
    list: () => board.list(),
    next: (o) => (calls['next']!++, board.next(o)),
    heartbeat: (id, f) => (calls['heartbeat']!++, board.heartbeat(id, f)),
    done: (id, f) => board.done(id, f),
    fail: (id, f) => board.fail(id, f),
    release: (id, f) => board.release(id, f),
    retry: (id, f) => board.retry(id, f),
    lockPaths: (id, o) => board.lockPaths(id, o),
    paths: () => board.paths(),
    waitForWork: (signal, ms) => board.waitForWork(signal, ms),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Let a second go by on the wall clock: what must not happen would have happened hundreds of times by then. */
const aSecond = () => new Promise((resolve) => setTimeout(resolve, 1000));

describe('durations past 24.8 days', () => {
  it('--lease 90d beats once before the command starts, then not again for 30 days', async () => {
    const file = boardFile('[] long\n');
    const dir = dirname(file);
    const board = counting(file);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort()); // a failed expectation leaves no runner behind
    const run = runTasks(board, { command: ['sh', '-c', WAIT_GO], env: { ...process.env, DIR: dir }, lease: '90d', commit: false, signal: stop.signal });
    const pgid = await pidIn(join(dir, 'cmd.pid'));
    await aSecond();
    expect(board.calls['heartbeat']).toBe(1);
    stop.abort();
    writeFileSync(join(dir, 'go'), '');
    expect((await run).tasks.map((t) => t.outcome)).toEqual(['released']);
    expect(groupAlive(pgid)).toBe(false);
  });

  it('--grace 30d leaves a command that ignores SIGTERM running after the signal', async () => {
    const file = boardFile('[] stubborn\n');
    const dir = dirname(file);
    const events: RunEvent[] = [];
    const stop = new AbortController();
    cleanups.push(async () => stop.abort()); // a failed expectation leaves no runner behind
    const run = runTasks(openBoard(file), { command: ['sh', '-c', WAIT_GO], env: { ...process.env, DIR: dir }, grace: '30d', signal: stop.signal, onEvent: (e) => events.push(e) });
    const pgid = await pidIn(join(dir, 'cmd.pid'));
    stop.abort();
    await until('the stop', () => events.some((e) => e.event === 'stopping'));
    await aSecond();
    expect(groupAlive(pgid)).toBe(true);
    signalGroup(pgid, 'SIGKILL');
    expect((await run).tasks.map((t) => t.outcome)).toEqual(['released']);
  });

  it('--interval 30d polls once and then waits, rather than polling in a loop', async () => {
    const file = boardFile('[x] nothing to do\n');
    const board = counting(file);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort()); // a failed expectation leaves no runner behind
    const run = runTasks(board, { command: ['true'], loop: true, interval: '30d', signal: stop.signal });
    await until('the first poll', () => board.calls['next']! >= 1);
    await aSecond();
    expect(board.calls['next']).toBe(1);
    stop.abort();
    expect((await run).stoppedBy).toBe('SIGTERM');
  });

  it.skipIf(!pgReachable)(pgTitle('--lock-timeout 25d on PostgreSQL connects and works (the setting is capped at its 32-bit limit)'), async () => {
    const name = uniqueBoard('longwait');
    const url = boardUrl(name);
    cleanups.push(() => dropBoards([name]));
    const added = mdclaim(['add', 'one', '--file', url, '--lock-timeout', '25d']);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const listed = mdclaim(['list', '--file', url, '--lock-timeout', '25d', '--json']);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('"one"');
  });
});
