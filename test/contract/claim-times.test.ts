import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/watch/summary.js';
import { errorOf } from '../helpers/errors.js';
import { describeKinds, fileKind, kinds, pgKind } from './kinds.js';
import { pgTitle } from '../helpers/pg.js';

// A claim time reads the same on every board (src/format/claim-time.ts): a
// leap second is the instant after :59, and a time that names no instant
// makes no claim that can lapse on the file board, and no row at all.

describeKinds('claim times on the $name board', (kind) => {
  it('reads a leap second as the instant after :59: the claim expires 30m after it, and lapses', async () => {
    const m = await kind.make('# T\n\n- [🟡, x, 2016-12-31T23:59:60Z] leap\n- [ ] after\n');
    const [leap] = await m.board.list();
    expect([leap!.claimedAt, leap!.expiresAt]).toEqual(['2016-12-31T23:59:60Z', '2017-01-01T00:30:00Z']);
    // Long lapsed: the next claimer takes it over before the open task below it.
    expect((await m.board.next({ by: 'y' }))?.text).toBe('leap');
  });

  it('reads a leap second with an offset and a fraction as the same kind of instant', async () => {
    const m = await kind.make('# T\n\n- [🟡, x, 2016-12-31T23:59:60.5-01:00, 1h] leap\n');
    expect((await m.board.list())[0]!.expiresAt).toBe('2017-01-01T02:00:00Z');
  });
});

describe('a claim time that names no instant', () => {
  it('is a claim with no age on the file board: never lapses, shows no expiry, and is not taken', async () => {
    for (const at of ['2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2016-13-01T00:00:00Z', '2016-01-01T24:00:00Z', '0000-01-01T00:00:00Z']) {
      const m = await fileKind.make(`# T\n\n- [🟡, x, ${at}] odd\n- [ ] next\n`);
      const [odd] = await m.board.list();
      expect([odd!.claimedAt, odd!.expiresAt]).toEqual([at, undefined]);
      expect((await m.board.next({ by: 'y' }))?.text).toBe('next');
      expect(await m.board.reap()).toEqual([]);
    }
  });

  it('gives the claim no age in the board at a glance either: status shows it held, for no length of time', async () => {
    for (const at of ['2026-02-30T00:00:00Z', '2016-01-01T24:00:00Z']) {
      const m = await fileKind.make(`# T\n\n- [🟡, x, ${at}, 5m] odd\n`);
      const { claims, oldestClaim } = summarize(await m.board.list(), Date.parse('2026-06-01T00:00:00Z'));
      expect(claims).toEqual([expect.objectContaining({ by: 'x', claimedAt: at })]);
      expect(claims[0]).not.toHaveProperty('heldMs');
      expect(oldestClaim).toBeNull();
    }
  });

  it.skipIf(!kinds.includes(pgKind))(pgTitle('makes import fail with one USAGE line naming its line, and the board is not made'), async () => {
    const err = await errorOf(pgKind.make('# T\n\n- [ ] fine\n- [🟡, x, 2026-02-30T00:00:00Z] odd\n'));
    expect([err.code, err.message]).toEqual(['USAGE', 'line 4: the claim time 2026-02-30T00:00:00Z names no instant (no such day; an hour, minute or offset out of range; or outside years 1–9999 UTC)']);
  });
});
