import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../../src/index.js';
import { pgTitle, sql } from '../helpers/pg.js';
import { fixture, lines, start, startTogether, track, type Exit } from '../helpers/procs.js';
import { describeKinds, kinds, pgKind } from './kinds.js';

// Races with real processes, written once for every board.

const PROCS = 16;
const TASKS = 200;

function board(n: number, prefix = 'task'): string {
  return '# Race\n\n' + Array.from({ length: n }, (_, i) => `- [ ] ${prefix} ${i} {race}`).join('\n') + '\n';
}

function doubles(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}

function clean(e: Exit): string {
  return e.stderr.replace(/.*MdclaimWarning.*\n?/g, '');
}

/** Race `procs` claimer processes (each with `inFlight` claims going at once, over two board objects) and collect who won what. */
async function race(location: string, procs: number, inFlight: number, script = 'claimer.mjs', env: Record<string, string> = {}) {
  const runs = await startTogether(Array.from({ length: procs }, (_, i) => ({ script: fixture(script), args: [location, `w${i}`, String(inFlight)], env })));
  const exits = await Promise.all(runs.map((r) => r.done));
  return exits.flatMap((e, i) => lines(e.stdout, 'claimed').map((id) => ({ id, by: `w${i}`, stderr: clean(e) })));
}

describeKinds('the $name board under racing processes', (kind) => {
  it(`claims each of ${TASKS} tasks exactly once across ${PROCS} processes`, async () => {
    const b = await kind.make(board(TASKS));
    const claims = await race(b.location, PROCS, 2);
    expect(claims.filter((c) => c.stderr !== '').map((c) => c.stderr)).toEqual([]);
    expect(doubles(claims.map((c) => c.id))).toEqual([]);
    expect(claims).toHaveLength(TASKS);
    // The board agrees with what every winner was told, and nothing outside the markers changed.
    const bytes = (await b.bytes()).toString();
    const owner = new Map(claims.map((c) => [c.id, c.by]));
    for (const t of parseTasks(bytes)) expect([t.status, t.by]).toEqual(['claimed', owner.get(t.id)]);
    expect(bytes.replace(/\[🟡, w\d+, [^\]]+\]/g, '[ ]')).toBe(board(TASKS));
  });

  it('claims each task exactly once when two separate pools (two hosts) race with many claims in flight', async () => {
    const b = await kind.make(board(TASKS));
    const claims = await race(b.location, 2, 8);
    expect(doubles(claims.map((c) => c.id))).toEqual([]);
    expect(claims).toHaveLength(TASKS);
    expect(new Set(claims.map((c) => c.by))).toEqual(new Set(['w0', 'w1']));
  });

  it('lets a reaper race claimers: every stale claim reopened, no fresh claim lost', async () => {
    const open = Array.from({ length: 160 }, (_, i) => `- [ ] fresh ${i}`);
    const stale = Array.from({ length: 40 }, (_, i) => `- [🟡, ghost${i}, 2020-01-01T00:00:00Z] stale ${i}`);
    const b = await kind.make(open.flatMap((line, i) => (i % 4 === 0 ? [stale[i / 4]!, line] : [line])).join('\n') + '\n');
    const reapers = [0, 1].map(() => start(fixture('reaper.mjs'), [b.location, '10m']));
    const claimers = Array.from({ length: 6 }, (_, i) => start(fixture('reaper-race.mjs'), [b.location, `c${i}`]));
    const finished = await Promise.all(claimers.map((c) => c.done));
    for (const r of reapers) r.child.kill('SIGTERM');
    const reaped = await Promise.all(reapers.map((r) => r.done));
    expect(finished.flatMap((e) => lines(e.stdout, 'lost'))).toEqual([]);
    const done = finished.flatMap((e) => lines(e.stdout, 'done'));
    expect(doubles(done)).toEqual([]);
    expect(done).toHaveLength(200);
    const reopened = reaped.flatMap((e) => lines(e.stdout, 'reaped'));
    for (const r of reopened) expect(r).toMatch(/ 2020-01-01T00:00:00Z$/);
    // Claimers may take a stale claim over before a reaper gets to it: never more than the stale ones, each at most once.
    expect(reopened.length).toBeLessThanOrEqual(40);
    expect(doubles(reopened)).toEqual([]);
    expect(parseTasks(await b.bytes()).every((t) => t.status === 'done')).toBe(true);
    if (kind.name === 'pg') {
      // Each stale claim left its ghost exactly once: reaped, or taken over by a claimer, never both.
      const rows = await sql<{ text: string; event: string }>(
        `SELECT h.text, h.event FROM mdclaim.history h JOIN mdclaim.board b ON b.id = h.board
         WHERE b.name = $1 AND h.event IN ('reaped', 'taken over')`,
        [new URL(b.location).searchParams.get('board')],
      );
      expect(rows.map((r) => r.text).sort()).toEqual(stale.map((l) => l.replace(/^.*\] /, '')).sort());
      expect(rows.filter((r) => r.event === 'reaped')).toHaveLength(reopened.length);
    }
  });

  it('hands out each ⏰ once, only after every task above it is done, and never after a failure above, while tasks are added', async () => {
    const SECTIONS = 24;
    const doc = Array.from({ length: SECTIONS }, (_, i) =>
      [`## S${i}`, `- [ ] A${i}.1`, `- [ ] A${i}.2${i % 3 === 0 ? ' {fail}' : ''}`, `- [⏰] B${i}`, ''].join('\n'),
    ).join('\n');
    const b = await kind.make(doc);
    const adders = [0, 1].map((i) => start(fixture('adder.mjs'), [b.location, `extra${i}`, '12', String(SECTIONS)]));
    const racers = await startTogether(Array.from({ length: 8 }, (_, i) => ({ script: fixture('blocked-racer.mjs'), args: [b.location, `r${i}`] })));
    const added = (await Promise.all(adders.map((a) => a.done))).flatMap((e) => lines(e.stdout, 'added'));
    // Racers that ran out of work before the last add would leave it open: one more drains it.
    const exits = await Promise.all(racers.map((r) => r.done));
    const last = await start(fixture('blocked-racer.mjs'), [b.location, 'rz']).done;
    const all = [...exits, last];
    for (const e of all) expect(clean(e)).toBe('');
    const gotB = all.flatMap((e) => lines(e.stdout, 'gotB'));
    expect(gotB.filter((g) => !g.endsWith(' true'))).toEqual([]);
    const bs = gotB.map((g) => g.split(' ')[0]!);
    expect(doubles(bs)).toEqual([]);
    expect(bs.sort()).toEqual(Array.from({ length: SECTIONS }, (_, i) => i).filter((i) => i % 3 !== 0).map((i) => `B${i}`).sort());
    expect(added).toHaveLength(24);
    const final = parseTasks(await b.bytes());
    for (const t of final) {
      if (t.text.includes('{fail}')) expect(t.status).toBe('failed');
      else if (/^B\d+$/.test(t.text) && Number(t.text.slice(1)) % 3 === 0) expect(t.status).toBe('blocked');
      else expect([t.text, t.status]).toEqual([t.text, 'done']);
    }
    if (kind.name === 'pg') await expectHistoryOrder(b.location);
  });

  it("takes over a frozen holder's claim by that claim's own lease, and refuses the holder's late write", async () => {
    const b = await kind.make('- [ ] short\n- [ ] long\n- [ ] other\n');
    const [short, long] = await b.board.list();
    const holder = track(spawn(process.execPath, [fixture('lease-holder.mjs'), b.location, 'h', short!.id, long!.id], { stdio: ['pipe', 'pipe', 'pipe'] }));
    let out = '';
    holder.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => holder.on('close', resolve));
    while (!out.includes('holding')) await new Promise((r) => setTimeout(r, 20));
    holder.kill('SIGSTOP');
    try {
      // The other task goes first; then nothing until the 2s lease runs out; the 1h claim is never taken.
      expect(await b.board.next({ by: 't' })).toMatchObject({ text: 'other' });
      let taken = await b.board.next({ by: 't' });
      expect(taken).toBeNull();
      while (taken === null) {
        await new Promise((r) => setTimeout(r, 100));
        taken = await b.board.next({ by: 't' });
      }
      expect(taken).toMatchObject({ text: 'short', by: 't' });
      expect(await b.board.next({ by: 't', lease: '1s' })).toBeNull();
    } finally {
      holder.kill('SIGCONT');
    }
    holder.stdin.end('go\n');
    expect(await exited).toBe(0);
    expect(out).toContain('refused short CONFLICT t\n');
    expect(out).toContain('done long\n');
  });
});

/** Each ⏰'s claim comes after the done of every task above it in its section, by the order history records events. */
async function expectHistoryOrder(location: string): Promise<void> {
  const name = new URL(location).searchParams.get('board');
  const events = await sql<{ seq: string; text: string; event: string; section: string }>(
    `SELECT h.seq, h.text, h.event, t.section FROM mdclaim.history h JOIN mdclaim.task t ON t.uid = h.task
     JOIN mdclaim.board b ON b.id = h.board WHERE b.name = $1 ORDER BY h.seq`,
    [name],
  );
  for (const claim of events.filter((e) => e.event === 'claimed' && /^B\d+$/.test(e.text))) {
    const i = claim.text.slice(1);
    for (const a of [`A${i}.1`, `A${i}.2`]) {
      const done = events.find((e) => e.text === a && e.event === 'done');
      expect(done, `${a} done before ${claim.text} claimed`).toBeDefined();
      expect(Number(done!.seq)).toBeLessThan(Number(claim.seq));
    }
  }
}

describe.skipIf(!kinds.includes(pgKind))(pgTitle('the race harness (controls)'), () => {
  it('sees double winners when careless two-statement claimers race on the PostgreSQL board', async () => {
    const b = await pgKind.make(board(TASKS));
    const claims = await race(b.location, PROCS, 1, 'naive-claimer.mjs');
    expect(claims.filter((c) => c.stderr !== '').map((c) => c.stderr)).toEqual([]);
    // If this fails, the harness could not tell a broken claimer from a working one.
    expect(doubles(claims.map((c) => c.id)).length).toBeGreaterThan(0);
  });

  it('sees a ⏰ handed out too early when the claim forgets the ⏰ rule', async () => {
    const doc = Array.from({ length: 6 }, (_, i) => [`## S${i}`, `- [ ] A${i}.1`, `- [ ] A${i}.2`, `- [⏰] B${i}`, ''].join('\n')).join('\n');
    const b = await pgKind.make(doc);
    const runs = await startTogether(Array.from({ length: 4 }, (_, i) => ({ script: fixture('naive-blocked.mjs'), args: [b.location, `n${i}`] })));
    const exits = await Promise.all(runs.map((r) => r.done));
    for (const e of exits) expect(clean(e)).toBe('');
    const gotB = exits.flatMap((e) => lines(e.stdout, 'gotB'));
    expect(gotB.filter((g) => g.endsWith(' false')).length).toBeGreaterThan(0);
  });
});

