import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent, TaskBoard } from '../../src/index.js';
import { fileKind, pgKind } from './kinds.js';
import { pgReachable } from '../helpers/pg.js';
import { prng } from '../helpers/prng.js';

// Both boards keep one history: the same generated sequence of commands
// (claims, races, lapses and takeovers, done with commits, failures with
// reasons, retries, reaps, reopens, adds, heartbeats, path locks) run on a file board and
// on a PostgreSQL board gives the same events, in order, with the same ids,
// names, commits, reasons and paths. Times are not compared; a PostgreSQL board's
// `renewed` (the file board journals no heartbeat) and `imported` (its board
// was loaded by import) are its own.

const BOARD = `# Backend

- [ ] PLAT-1 Add login {backend}
- [ ] PLAT-2 Rate-limit the login {backend}
- [ ] Write the guide

# Frontend

- [ ] Fix the header
- [ ] PLAT-3 Dark mode
- [ ] Tidy the footer
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NAMES = ['ann', 'bob', 'cy'];
const PATHS = ['src/a.ts', 'src/', 'docs/', 'lib/c.ts'];

/** One step of the sequence, on one board: what it returned (the error code when it threw). */
type Step = (b: TaskBoard, racer: Map<string, string>) => Promise<string>;

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    const r = await p;
    if (r === null) return 'null';
    if (Array.isArray(r)) return `reaped ${r.map((t: { id: string }) => t.id).join(',')}`;
    const t = r as { id: string; status: string; by?: string };
    return `${t.id} ${t.status}`;
  } catch (err) {
    return `error ${(err as { code?: string }).code}`;
  }
}

/** The sequence of a seed: each step chosen from the board as it reads now (both boards read the same). */
async function makeStep(pick: () => number, b: TaskBoard, n: number): Promise<{ name: string; run: Step; after?: number }> {
  const tasks = await b.list();
  const any = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(pick() * xs.length)];
  const who = any(NAMES)!;
  const claimed = tasks.filter((t) => t.status === 'claimed');
  const finished = tasks.filter((t) => t.status === 'done' || t.status === 'failed');
  const held = any(claimed);
  const r = pick();
  // Leases that cannot lapse between one board's step and the other's: the lapses, takeovers and parkings are the opening's,
  // which waits out its one-second leases (the shortest a claim may have) before the next step.
  const lease = '30m';
  // A claimer with an attempts budget counts its claims on the line, and parks a lapsed claim at it.
  const o = { by: who, lease, ...(pick() < 0.4 ? { maxAttempts: 2 } : {}) };
  if (r < 0.18) return { name: `next ${JSON.stringify(o)}`, run: (x) => outcome(x.next(o)), after: 5 };
  if (r < 0.3) {
    // Claims of claims, often: lapsed ones are taken over, and parked at the budget.
    const t = (pick() < 0.5 ? held : undefined) ?? any(tasks)!;
    return { name: `claim ${t.id} ${JSON.stringify(o)}`, run: (x) => outcome(x.claim(t.id, o)), after: 5 };
  }
  if (r < 0.36) {
    const t = any(tasks)!;
    // A race: two claimers at once, one wins; later steps act as whoever won it on that board.
    return {
      name: `race for ${t.id}`,
      run: async (x, racer) => {
        const rs = await Promise.allSettled([x.claim(t.id, { by: 'racer-a' }), x.claim(t.id, { by: 'racer-b' })]);
        const won = rs.flatMap((s, i) => (s.status === 'fulfilled' ? [i === 0 ? 'racer-a' : 'racer-b'] : []));
        if (won[0]) racer.set(t.id, won[0]);
        return `won ${won.length}`;
      },
    };
  }
  const as = (racer: Map<string, string>, by: string) => (by.startsWith('racer') ? racer.get(held!.id)! : by);
  if (held && r < 0.5) {
    const commit = `c${n}abc`;
    return { name: `done ${held.id}`, run: (x, m) => outcome(x.done(held.id, { by: as(m, held.by!), commit })) };
  }
  if (held && r < 0.6) return { name: `fail ${held.id}`, run: (x, m) => outcome(x.fail(held.id, { by: as(m, held.by!), reason: `broke at step ${n}` })) };
  if (held && r < 0.65) return { name: `release ${held.id}`, run: (x, m) => outcome(x.release(held.id, { by: as(m, held.by!) })) };
  // A retry's wait is long: whether it is over never depends on when each board ran the step.
  if (held && r < 0.7) return { name: `retry ${held.id}`, run: (x, m) => outcome(x.retry(held.id, { by: as(m, held.by!), delay: '1h' })) };
  if (held && r < 0.74) return { name: `heartbeat ${held.id}`, run: (x, m) => outcome(x.heartbeat(held.id, { by: as(m, held.by!) })) };
  if (held && r < 0.8) {
    // Path locks taken (a read turned write too) and let go, by name or all at once.
    const paths = PATHS.filter(() => pick() < 0.4);
    const mode = pick() < 0.5 ? 'writes' : 'reads';
    if (pick() < 0.6) return { name: `lock ${held.id} ${mode} ${paths}`, run: (x, m) => outcome(x.lockPaths(held.id, { by: as(m, held.by!), [mode]: paths.length > 0 ? paths : ['lib/'] })) };
    const some = pick() < 0.5 ? { paths: paths.length > 0 ? paths : ['lib/'] } : {};
    return { name: `unlock ${held.id} ${JSON.stringify(some)}`, run: (x, m) => outcome(x.unlockPaths(held.id, { by: as(m, held.by!), ...some })) };
  }
  if (r < 0.86) {
    const max = pick() < 0.5 ? { maxAttempts: 2 } : {};
    return { name: `reap ${JSON.stringify(max)}`, run: (x) => outcome(x.reap(max)) };
  }
  const f = any(finished);
  if (f && r < 0.93) return { name: `reopen ${f.id}`, run: (x) => outcome(x.reopen(f.id, { by: 'ops' })) };
  const section = pick() < 0.5 ? { section: 'Frontend' } : {};
  return { name: `add`, run: (x) => outcome(x.add(`Task made at step ${n}`, section)) };
}

/**
 * Steps every sequence starts with: a parking both ways (a budgeted claim, a budgeted reap), a lapsed claim
 * reaped under no budget, and path locks taken, turned and let go. Lapses are waited for in three rounds, every
 * claim of a round lapsing together: a 1 s lease has lapsed a second after its claim, whatever part of a second
 * the claim was made in. No step needs a one-second claim to be still live.
 */
const OPENING: { name: string; run: Step; after?: number }[] = [
  // Round 1: two claims under a budget of 2.
  ...['PLAT-1', 'PLAT-2'].map((id, i) => ({ name: `claim ${id} by ann`, run: ((x) => outcome(x.claim(id, { by: 'ann', lease: '1s', maxAttempts: 2 }))) as Step, ...(i === 1 ? { after: 1050 } : {}) })),
  // Round 2: both taken over, their second attempt.
  ...['PLAT-1', 'PLAT-2'].map((id, i) => ({ name: `claim ${id} by bob`, run: ((x) => outcome(x.claim(id, { by: 'bob', lease: '1s', maxAttempts: 2 }))) as Step, ...(i === 1 ? { after: 1050 } : {}) })),
  // Round 3: at the budget, one parked by a claim, the other by a reap.
  { name: 'claim PLAT-1 by cy', run: (x) => outcome(x.claim('PLAT-1', { by: 'cy', lease: '1s', maxAttempts: 2 })) },
  { name: 'reap at 2', run: (x) => outcome(x.reap({ maxAttempts: 2 })) },
  // A lapsed claim under no budget: reaped, reopened.
  { name: 'claim the guide by ann', run: async (x) => outcome(x.claim((await x.list()).find((t) => t.text === 'Write the guide')!.id, { by: 'ann', lease: '1s' })), after: 1050 },
  { name: 'reap', run: (x) => outcome(x.reap()) },
  // Path locks: a read, the same path's write in its place (taken, and the read let go), then all let go.
  { name: 'claim PLAT-3', run: (x) => outcome(x.claim('PLAT-3', { by: 'ann' })) },
  { name: 'lock reads', run: (x) => outcome(x.lockPaths('PLAT-3', { by: 'ann', reads: ['docs/', 'lib/c.ts'] })) },
  { name: 'lock writes', run: (x) => outcome(x.lockPaths('PLAT-3', { by: 'ann', writes: ['docs/', 'src/a.ts'] })) },
  { name: 'unlock all', run: (x) => outcome(x.unlockPaths('PLAT-3', { by: 'ann' })) },
];

/** What is compared of an event: all but its times and place; a racer is whoever won. */
function compared(e: HistoryEvent): string {
  const name = (s?: string) => (s?.startsWith('racer-') ? 'racer' : s);
  return JSON.stringify([e.event, e.id, name(e.by), name(e.from), e.commit, e.reason, e.attempts, e.paths, e.via, e.text]);
}

const own = (e: HistoryEvent) => e.event !== 'renewed' && e.event !== 'imported';

describe.skipIf(!pgReachable)('history, on both boards', () => {
  const seen: string[] = [];
  // Events that carry the attempts their task's line counts after them (a first attempt is not written; a second is).
  const counted: string[] = [];
  // The seeds run at once: each has boards of its own, and most of a sequence's time is its opening's waits.
  for (const seed of [1, 2, 3, 4]) {
    it.concurrent(`is the same for the same generated sequence of commands (seed ${seed})`, async ({ expect }) => {
      const file = await fileKind.make(BOARD);
      writeFileSync(`${file.location}.history.jsonl`, '');
      const pg = await pgKind.make(BOARD);
      const pick = prng(seed);
      const racers = [new Map<string, string>(), new Map<string, string>()];
      const steps: string[] = [];
      for (let n = 0; n < OPENING.length + 60; n++) {
        const step = OPENING[n] ?? (await makeStep(pick, file.board, n));
        const got = [await step.run(file.board, racers[0]!), await step.run(pg.board, racers[1]!)];
        steps.push(`${step.name}: ${got[0]}`);
        expect(got[1], steps.join('\n')).toBe(got[0]);
        if (step.after) await sleep(step.after);
      }
      const [a, b] = [await file.board.history(), await pg.board.history()];
      expect(a.length).toBeGreaterThan(20);
      seen.push(...a.map((e) => e.event));
      counted.push(...a.filter((e) => e.attempts !== undefined).map((e) => `${e.event} ${e.attempts}`));
      expect(a.map(compared), steps.join('\n')).toEqual(b.filter(own).map(compared));
      // One task's history is the board's, of that task alone.
      const id = a[0]!.id;
      expect((await file.board.history(id)).map(compared)).toEqual(a.filter((e) => e.id === id).map(compared));
      expect((await pg.board.history(id)).filter(own).map(compared)).toEqual(a.filter((e) => e.id === id).map(compared));
      await file.board.close();
    }, 120_000);
  }

  it('the sequences made every kind of event both boards record', () => {
    expect(counted.filter((c) => /^(reaped|parked|taken over) /.test(c)).length, 'lapses that count attempts').toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['added', 'claimed', 'taken over', 'done', 'failed', 'released', 'retried', 'reaped', 'parked', 'locked', 'unlocked']));
  });
});
