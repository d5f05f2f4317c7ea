import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { fixture, lines, start } from './helpers/procs.js';
import { boardFile, read } from './helpers/tmp.js';

describe.each(['flock', 'mkdir'])('a reaper racing claimers (%s)', (lock) => {
  it('reopens every stale claim and loses no fresh one', async () => {
    const env = { MDCLAIM_LOCK: lock };
    const open = Array.from({ length: 240 }, (_, i) => `- [ ] fresh ${i}`);
    // Their own lease outlives the test, so no claimer may take them over: only the reaper's --ttl reopens them.
    const stale = Array.from({ length: 60 }, (_, i) => `- [🟡, ghost${i}, 2020-01-01T00:00:00Z, 36500d] stale ${i}`);
    // Interleave stale claims among open tasks so reaper and claimers touch the same region.
    const body = open.flatMap((line, i) => (i % 4 === 0 ? [stale[i / 4]!, line] : [line]));
    const file = boardFile(body.join('\n') + '\n');
    const reapers = [0, 1].map(() => start(fixture('reaper.mjs'), [file, '10m'], env));
    const claimers = Array.from({ length: 6 }, (_, i) => start(fixture('reaper-race.mjs'), [file, `c${i}`], env));
    const finished = await Promise.all(claimers.map((c) => c.done));
    for (const r of reapers) r.child.kill('SIGTERM');
    const reaped = await Promise.all(reapers.map((r) => r.done));

    const lost = finished.flatMap((e) => lines(e.stdout, 'lost'));
    expect(lost).toEqual([]);
    const done = finished.flatMap((e) => lines(e.stdout, 'done'));
    expect(new Set(done).size).toBe(300);
    expect(done).toHaveLength(300);
    // The reapers reopened only the stale claims (those from 2020), never a fresh one.
    const reopened = reaped.flatMap((e) => lines(e.stdout, 'reaped'));
    for (const r of reopened) expect(r).toMatch(/ 2020-01-01T00:00:00Z$/);
    expect(reopened).toHaveLength(60);
    expect(parseTasks(read(file)).every((t) => t.status === 'done')).toBe(true);
  });
});
