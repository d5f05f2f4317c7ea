import { expect, it } from 'vitest';
import { describeKinds } from './kinds.js';

// A lock line's time is read the same on every kind of board (lockSince): one not in mdclaim's own
// form (`+00:00`, `.5Z`) holds its path as one that is, and reads as the same instant.

describeKinds('a lock line\'s time on the $name board', (kind) => {
  it.each(['2026-11-30T04:10:00+00:00', '2026-11-30T04:10:00.5Z', '2026-11-30T05:10:00+01:00'])('holds the path of a lock since %s', async (since) => {
    const b = await kind.make(`- [🟡, a, 2099-01-01T00:00:00Z] A\n  - 🔒 write src/x.ts since ${since}\n- [ ] B {writes: src/x.ts}\n- [ ] C\n`);
    expect((await b.board.list())[0]!.locks).toEqual([{ mode: 'write', path: 'src/x.ts', since: '2026-11-30T04:10:00Z' }]);
    expect(await b.board.next({ by: 'b' })).toMatchObject({ text: 'C' });
  });
});
