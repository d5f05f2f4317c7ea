import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { formatClaimedAt } from '../src/format/marker.js';
import { watchBoard } from '../src/watch/watch.js';
import type { Key, Terminal } from '../src/watch/terminal.js';
import { until } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// A lease too long for one timer (3000d) is waited out in steps (see atDeadline): watch never
// has Node warn of a timeout overflow onto the screen it draws.

describe('watch on a claim with a lease longer than a timer holds', () => {
  it('draws the board and warns of nothing', async () => {
    const file = boardFile(`- [🟡, a, ${formatClaimedAt(Date.now())}, 3000d] held for years\n- [ ] open\n`);
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    const frames: string[][] = [];
    let key: (k: Key) => void = () => {};
    const terminal = {
      columns: 100,
      rows: 30,
      open: (onKey: (k: Key) => void) => void (key = onKey),
      draw: (lines: string[]) => void frames.push(lines),
      close: () => {},
    } as unknown as Terminal;
    const board = openBoard(file);
    try {
      const done = watchBoard(board, { location: file, filter: {}, changes: await board.changes(), terminal, style: { color: false, glyphs: false, width: (s) => s.length } });
      await until('a frame with the board read', () => frames.some((f) => f.join('\n').includes('held for years')));
      // A warning is emitted on a later tick than the timer set: give it some.
      await new Promise((r) => setTimeout(r, 200));
      key({ name: 'q' });
      expect(await done).toBe(0);
    } finally {
      process.off('warning', onWarning);
      await board.close();
    }
    expect(warnings).toEqual([]);
  });
});
