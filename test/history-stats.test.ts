import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../src/board/types.js';
import { parseTasks } from '../src/index.js';
import { statusLines } from '../src/watch/status-text.js';
import { historyStats, median } from '../src/watch/history-stats.js';
import { summarize } from '../src/watch/summary.js';
import { PLAIN } from '../src/watch/style.js';
import { mdclaim } from './helpers/cli.js';
import { fileKind, pgKind } from './contract/kinds.js';
import { pgReachable } from './helpers/pg.js';

// Durations and rates from a board's history, as status and watch show them:
// from a known history at a known clock, and from both boards alike.

const NOW = Date.parse('2026-05-04T12:00:00Z');
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

const BOARD = '# Backend\n\n- [ ] PLAT-1 Login\n- [ ] PLAT-2 Rate limit\n\n# Frontend\n\n- [ ] PLAT-3 Header\n- [ ] PLAT-4 Footer\n';
const TASKS = parseTasks(BOARD);

let seq = 0;
const ev = (minutesAgo: number, event: HistoryEvent['event'], id: string, more: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ seq: ++seq, at: at(minutesAgo), event, id, via: 'test', text: `${id} text`, ...more });

// PLAT-1: claimed 50m ago, done 40m ago (10m). PLAT-2: claimed 90m ago, taken over 45m ago, done 15m ago (30m from the takeover).
// PLAT-3: failed twice (once parked), the second after a claim of 5m. PLAT-4: done 3h ago after 2m (outside the hour, inside the day).
// A task no longer on the board: done 20m ago after 4m.
const HISTORY: HistoryEvent[] = [
  ev(182, 'claimed', 'PLAT-4', { by: 'd' }),
  ev(180, 'done', 'PLAT-4', { by: 'd' }),
  ev(90, 'claimed', 'PLAT-2', { by: 'a' }),
  ev(70, 'claimed', 'PLAT-3', { by: 'c' }),
  ev(60, 'parked', 'PLAT-3', { from: 'c', reason: 'abandoned after 1 attempts; last held by c' }),
  ev(50, 'claimed', 'PLAT-1', { by: 'a' }),
  ev(45, 'taken over', 'PLAT-2', { by: 'b', from: 'a' }),
  ev(40, 'done', 'PLAT-1', { by: 'a', commit: 'abc' }),
  ev(30, 'released', 'PLAT-3', { by: 'ops', via: 'reopen' }),
  ev(25, 'claimed', 'gone00000000', { by: 'e' }),
  ev(21, 'renewed', 'gone00000000', { by: 'e' }),
  ev(21, 'claimed', 'PLAT-3', { by: 'c' }),
  ev(20, 'done', 'gone00000000', { by: 'e' }),
  ev(16, 'failed', 'PLAT-3', { by: 'c', reason: 'red' }),
  ev(15, 'done', 'PLAT-2', { by: 'b' }),
];

describe('durations and rates from a history', () => {
  it('counts done and failed in the last hour, and times claim to done over the day, for the board and each section', () => {
    const s = historyStats(HISTORY, TASKS, NOW);
    // Done in the hour: PLAT-1, gone, PLAT-2 (PLAT-4 was 3h ago). Failed: PLAT-3's failure (its parking was 60m ago: in the hour, at its edge).
    expect([s.done, s.failed]).toEqual([3, 2]);
    // Claim to done: PLAT-4 2m, PLAT-1 10m, gone 5m (a renewal keeps the claim), PLAT-2 30m: median of 2, 5, 10, 30.
    expect(s.medianMs).toBe(7.5 * 60_000);
    expect(s.slowest).toMatchObject({ id: 'PLAT-2', ms: 30 * 60_000 });
    expect(s.failedMost).toEqual([{ id: 'PLAT-3', text: 'PLAT-3 text', count: 2 }]);
    expect(s.takenOverMost).toEqual([{ id: 'PLAT-2', text: 'PLAT-2 text', count: 1 }]);
    expect(s.sections.map((x) => [x.name, x.done, x.failed, x.medianMs])).toEqual([
      ['Backend', 2, 0, 20 * 60_000],
      ['Frontend', 0, 2, 2 * 60_000],
    ]);
  });

  it('keeps to the tasks a filter shows, and says so in status', () => {
    const frontend = summarize(TASKS, NOW, { section: 'Frontend' }, undefined, undefined, undefined, HISTORY).history!;
    expect([frontend.done, frontend.failed, frontend.medianMs]).toEqual([0, 2, 2 * 60_000]);
    const lines = statusLines('tasks.md', summarize(TASKS, NOW, {}, undefined, undefined, undefined, HISTORY));
    const from = lines.findIndex((l) => l.startsWith('History'));
    expect(lines.slice(from)).toEqual([
      'History (done and failed: last hour; durations and most: last 1d00h)',
      '  board  3 done, 2 failed; claim->done median 7m30s, slowest 30m00s (PLAT-2)',
      '  Backend  2 done, 0 failed; claim->done median 20m00s, slowest 30m00s (PLAT-2)',
      '  Frontend  0 done, 2 failed; claim->done median 2m00s, slowest 2m00s (PLAT-4)',
      '  failed most: PLAT-3 ×2',
      '  taken over most: PLAT-2 ×1',
    ]);
    expect(PLAIN.glyphs).toBe(false);
  });

  it('has no median without a finished claim, and the median of an odd count is its middle', () => {
    expect(median([])).toBeNull();
    expect(median([1, 5, 9])).toBe(5);
    expect(historyStats([], TASKS, NOW)).toMatchObject({ done: 0, failed: 0, medianMs: null, slowest: null, failedMost: [], takenOverMost: [], sections: [] });
  });
});

describe.skipIf(!pgReachable)('status --json, from the history of both boards', () => {
  it('gives the same counts and the same tasks failed and taken over most', async () => {
    const got = [];
    // Both boards worked to the same point, then one wait for both one-second leases to lapse.
    const boards = [];
    for (const kind of [fileKind, pgKind]) {
      const b = await kind.make(BOARD);
      if (kind === fileKind) writeFileSync(`${b.location}.history.jsonl`, '');
      await b.board.claim('PLAT-1', { by: 'a' });
      await b.board.done('PLAT-1', { by: 'a' });
      // The shortest lease a claim may have, lapsed a second after the claim.
      await b.board.claim('PLAT-3', { by: 'c', lease: '1s' });
      boards.push(b);
    }
    await new Promise((r) => setTimeout(r, 1050));
    for (const b of boards) {
      await b.board.claim('PLAT-3', { by: 'd' });
      await b.board.fail('PLAT-3', { by: 'd', reason: 'red' });
      const r = mdclaim(['status', '--json', '-f', b.location]);
      expect(r.status).toBe(0);
      const h = (JSON.parse(r.stdout) as { history: Record<string, unknown> & { sections: { name: string }[] } }).history;
      got.push([h['done'], h['failed'], h['failedMost'], h['takenOverMost'], h.sections.map((s) => s.name), typeof h['medianMs']]);
    }
    expect(got[0]).toEqual([1, 1, [{ id: 'PLAT-3', text: 'PLAT-3 Header', count: 1 }], [{ id: 'PLAT-3', text: 'PLAT-3 Header', count: 1 }], ['Backend', 'Frontend'], 'number']);
    expect(got[1]).toEqual(got[0]);
  });
});
