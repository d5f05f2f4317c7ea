import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { CLI } from './helpers/cli.js';
import { expectExitWhileQueued, hasFlock1, heldElsewhere, queuedOn, until, whileHeld } from './helpers/locks.js';
import { fixture, lines, start } from './helpers/procs.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

// The two ways mdclaim takes flock(2) — fs-ext where it was built, koffi
// where it was not — are one lock: these tests run real processes on each.

const PROCS = 8;
const TASKS = 300;
const BOARD = '- [ ] one\n- [ ] two\n';

/** Environment of a process where fs-ext cannot load, as after an install without a compiler: it takes flock through koffi. */
const KOFFI = { NODE_OPTIONS: `--import=${fixture('no-fs-ext.mjs')}` };

const board = (n: number) => '# Race\n\n' + Array.from({ length: n }, (_, i) => `- [ ] task ${i} {race}`).join('\n') + '\n';

function doubles(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}

/** Race PROCS processes, the even ones on fs-ext and the odd ones on koffi, over one board. */
async function mixedRace(file: string, lock: string) {
  const runs = Array.from({ length: PROCS }, (_, i) =>
    start(fixture('provider-claimer.mjs'), [file, `w${i}`, '4'], { MDCLAIM_LOCK: lock, ...(i % 2 ? KOFFI : {}) }),
  );
  const exits = await Promise.all(runs.map((r) => r.done));
  for (const e of exits) expect(e.stderr).toBe('');
  return { ids: exits.flatMap((e) => lines(e.stdout, 'claimed')), providers: exits.map((e) => lines(e.stdout, 'provider')[0]) };
}

describe('processes on fs-ext and on koffi race on one board', () => {
  it(`claim each of ${TASKS} tasks exactly once, half of ${PROCS} processes on each provider`, async () => {
    const file = boardFile(board(TASKS));
    const { ids, providers } = await mixedRace(file, 'flock');
    expect(providers).toEqual(Array.from({ length: PROCS }, (_, i) => (i % 2 ? 'koffi' : 'fs-ext')));
    expect(doubles(ids)).toEqual([]);
    expect(ids).toHaveLength(TASKS);
    expect(parseTasks(read(file)).every((t) => t.status === 'claimed')).toBe(true);
  });

  it('and the same harness without a lock sees double winners (control)', async () => {
    let seen = 0;
    for (let round = 0; round < 5 && seen === 0; round++) seen = doubles((await mixedRace(boardFile(board(TASKS)), 'none')).ids).length;
    expect(seen).toBeGreaterThan(0);
  });
});

describe('worker threads', () => {
  const threads = async (hide: boolean) => {
    const file = boardFile(board(60));
    const e = await start(fixture('thread-claimers.mjs'), [file, '3', hide ? 'hide' : '']).done;
    expect(e.stderr).toBe('');
    expect([e.code, e.signal]).toEqual([0, null]);
    const ids = lines(e.stdout, 'claimed');
    expect(doubles(ids)).toEqual([]);
    expect(ids).toHaveLength(60);
    return lines(e.stdout, 'provider');
  };

  it('load koffi in the main thread and three workers at once where fs-ext is not built, and claim each task once between them', async () => {
    expect(await threads(true)).toEqual(['koffi', 'koffi', 'koffi', 'koffi']);
  });

  it('take koffi where fs-ext is built, so fs-ext is never loaded in a second thread (it crashes V8 there)', async () => {
    expect(await threads(false)).toEqual(['fs-ext', 'koffi', 'koffi', 'koffi']);
  });
});

describe.skipIf(!hasFlock1)('a koffi process waiting behind another holder', () => {
  it('waits in the kernel’s queue and gives up at its deadline, the holder still holding and nothing of its wait left', async () => {
    const file = boardFile(BOARD);
    const dir = dirname(file);
    await whileHeld(dir, async () => {
      const started = Date.now();
      const w = start(CLI, ['next', '--file', file, '--by', 'w', '--lock-timeout', '2s'], KOFFI);
      await until(() => queuedOn(dir) === 1, 'the waiter to queue in the kernel');
      const e = await w.done;
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      expect([e.code, e.stderr]).toEqual([1, expect.stringMatching(/^error\[LOCK_TIMEOUT\]: .*after 2000 ms\n$/)]);
      expect(queuedOn(dir)).toBe(0);
      expect(heldElsewhere(dir)).toBe(true);
      expect(bytesOf(file).equals(Buffer.from(BOARD))).toBe(true);
    });
    expect(heldElsewhere(dir)).toBe(false);
  });

  it('exits when asked to while it waits, before the holder lets go', async () => {
    await expectExitWhileQueued(boardFile(BOARD), KOFFI);
  });
});
