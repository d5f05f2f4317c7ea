import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { mdclaimAsync } from './helpers/cli.js';
import { fixture, lines, start } from './helpers/procs.js';
import { boardFile, read } from './helpers/tmp.js';

const PROCS = 8;
const TASKS = 300;

function board(n: number): string {
  return '# Race\n\n' + Array.from({ length: n }, (_, i) => `- [ ] task ${i} {race}`).join('\n') + '\n';
}

/** Race PROCS processes (each with several claims in flight) over one board; return who claimed what. */
async function race(file: string, lock: string) {
  const runs = Array.from({ length: PROCS }, (_, i) => start(fixture('claimer.mjs'), [file, `w${i}`, '4'], { MDCLAIM_LOCK: lock }));
  const exits = await Promise.all(runs.map((r) => r.done));
  for (const e of exits) expect(e.stderr).toBe('');
  const claims = exits.flatMap((e, i) => lines(e.stdout, 'claimed').map((id) => ({ id, by: `w${i}` })));
  const inFlight = Math.max(...exits.map((e) => Number(lines(e.stdout, 'inflight')[0])));
  return { claims, inFlight };
}

function doubles(claims: { id: string }[]): string[] {
  const seen = new Set<string>();
  return claims.filter((c) => seen.has(c.id) || !seen.add(c.id)).map((c) => c.id);
}

describe.each(['flock', 'mkdir'])('racing processes with %s', (lock) => {
  it(`claim each of ${TASKS} tasks exactly once across ${PROCS} processes`, async () => {
    const file = boardFile(board(TASKS));
    const { claims, inFlight } = await race(file, lock);
    expect(inFlight).toBeGreaterThan(1); // many operations were in flight inside each process
    expect(doubles(claims)).toEqual([]);
    expect(claims).toHaveLength(TASKS);
    // The file agrees with what every winner was told.
    const final = parseTasks(read(file));
    expect(final.every((t) => t.status === 'claimed')).toBe(true);
    const owner = new Map(claims.map((c) => [c.id, c.by]));
    for (const t of final) expect(t.by).toBe(owner.get(t.id));
    // Nothing outside the markers changed.
    expect(read(file).replace(/\[🟡, w\d, [^\]]+\]/g, '[ ]')).toBe(board(TASKS));
  });
});

describe('the race harness', () => {
  it('sees double winners when the same race runs without a lock (control)', async () => {
    // The check before each write catches most lost races even without a lock,
    // so a race may, rarely, end without a double: run it until one shows.
    let seen = 0;
    for (let round = 0; round < 5 && seen === 0; round++) {
      const file = boardFile(board(TASKS));
      seen = doubles((await race(file, 'none')).claims).length;
    }
    // If this fails, the harness could not tell a broken claimer from a working one.
    expect(seen).toBeGreaterThan(0);
  });
});

describe('racing CLI processes on one task', () => {
  it('gives the task to exactly one; every loser exits 4 naming the holder', async () => {
    const file = boardFile('- [ ] PLAT-1 contested\n- [ ] other\n');
    const results = await Promise.all(
      Array.from({ length: PROCS }, (_, i) => mdclaimAsync(['claim', 'PLAT-1', '--file', file, '--by', `agent${i}`])),
    );
    const winners = results.filter((r) => r.status === 0);
    expect(winners).toHaveLength(1);
    const holder = /^claimed PLAT-1 "contested" by (agent\d)/.exec(winners[0]!.stdout)![1];
    for (const r of results.filter((x) => x.status !== 0)) {
      expect(r.status).toBe(4);
      expect(r.stderr).toBe(`error[CONFLICT]: PLAT-1 "contested" already claimed by ${holder} since ${parseTasks(read(file))[0]!.claimedAt}\n`);
    }
  });
});
