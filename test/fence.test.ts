import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';


describe('fenced holder operations', () => {
  it('refuses heartbeat, done, fail and release fenced to an older claim by the same claimant, and leaves the file untouched', async () => {
    const file = boardFile('- [🟡, host-1, 2026-11-30T05:10:00Z] job\n');
    const board = openBoard(file, { now: () => Date.parse('2026-11-30T05:20:00Z') });
    const id = (await board.list())[0]!.id;
    const before = bytesOf(file);
    // The runner's claim was the one of 05:00; the line holds a newer claim by the same `by`.
    const stale = { by: 'host-1', claimedAt: '2026-11-30T05:00:00Z' };
    for (const op of [board.heartbeat(id, stale), board.done(id, stale), board.fail(id, { ...stale, reason: 'x' }), board.release(id, stale)]) {
      const err = await errorOf(op);
      expect(err).toMatchObject({ code: 'CONFLICT', holder: 'host-1' });
      expect(err.message).toContain('since 2026-11-30T05:10:00Z');
    }
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('carries the claim time from next through heartbeats to the write that ends the claim', async () => {
    const file = boardFile('- [ ] job\n');
    let now = Date.parse('2026-11-30T05:00:00Z');
    const board = openBoard(file, { now: () => now });
    const claim = (await board.next({ by: 'host-1' }))!;
    now += 60_000;
    const beat = await board.heartbeat(claim.id, { by: 'host-1', claimedAt: claim.claimedAt! });
    expect(beat.claimedAt).toBe('2026-11-30T05:01:00Z');
    // The claim time the heartbeat replaced no longer fences anything.
    expect((await errorOf(board.done(claim.id, { by: 'host-1', claimedAt: claim.claimedAt! }))).code).toBe('CONFLICT');
    expect(await board.done(claim.id, { by: 'host-1', claimedAt: beat.claimedAt! })).toMatchObject({ status: 'done' });
  });

  it('lets two runners with the same claimant id each finish only their own duplicate', async () => {
    const file = boardFile('- [ ] same\n- [ ] same\n');
    let now = Date.parse('2026-11-30T05:00:00Z');
    const board = openBoard(file, { now: () => now });
    const a = (await board.next({ by: 'host' }))!;
    now += 1000;
    const b = (await board.next({ by: 'host' }))!;
    expect([a.line, b.line]).toEqual([1, 2]);
    expect(await board.done(b.id, { by: 'host', claimedAt: b.claimedAt! })).toMatchObject({ line: 2 });
    expect(await board.release(a.id, { by: 'host', claimedAt: a.claimedAt! })).toMatchObject({ line: 1 });
    expect(read(file)).toBe('- [ ] same\n- [✅, host] same\n');
  });

  it('refuses a claimedAt that is no claim time as a usage error', async () => {
    const board = openBoard(boardFile('- [🟡, a, 2026-11-30T05:10:00Z] job\n'));
    const id = (await board.list())[0]!.id;
    expect((await errorOf(board.done(id, { by: 'a', claimedAt: 'yesterday' }))).code).toBe('USAGE');
  });
});
