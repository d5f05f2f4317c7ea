import { expect, it } from 'vitest';
import type { PgBoard } from '../../src/index.js';
import { named } from '../../src/format/named.js';
import { errorOf } from '../helpers/errors.js';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// reopen, on every kind of board: a finished task back to open, byte for byte
// as it read before it was claimed; anything else refused, the board unchanged.

const BOARD = '# Work\n\n- [ ] PLAT-1 Add login {backend}\n- [ ] Write the guide\n- [⏰] Ship it\n';

describeKinds('reopen on the $name board', (kind) => {
  it('puts a failed task back to open, its reason dropped, the line as it was before the claim', async () => {
    const b = await kind.make(BOARD);
    const t = await b.board.claim('PLAT-1', { by: 'a' });
    await b.board.fail(t.id, { by: 'a', reason: 'CI red\non main' });
    expect((await b.bytes()).toString()).toContain('- [❌, a] PLAT-1 Add login {backend} // Failed: CI red on main\n');
    const open = await b.board.reopen('PLAT-1');
    expect(open).toMatchObject({ id: 'PLAT-1', status: 'open', text: 'PLAT-1 Add login {backend}' });
    expect(open).not.toHaveProperty('reason');
    expect(open).not.toHaveProperty('by');
    expect((await b.bytes()).toString()).toBe(BOARD);
    // Claimable again.
    expect(await b.board.next({ by: 'b' })).toMatchObject({ id: 'PLAT-1', by: 'b' });
  });

  it('puts a done task back to open, its commit dropped', async () => {
    const b = await kind.make(BOARD);
    const t = (await b.board.list())[1]!;
    await b.board.claim(t.id, { by: 'a' });
    await b.board.done(t.id, { by: 'a', commit: 'abc1234' });
    expect(await b.board.reopen(t.id, { by: 'ops' })).toMatchObject({ id: t.id, status: 'open' });
    expect((await b.bytes()).toString()).toBe(BOARD);
  });

  it('refuses a claim (use release), an open task and an unknown id, the board unchanged', async () => {
    const b = await kind.make(BOARD);
    const t = await b.board.claim('PLAT-1', { by: 'a' });
    const before = await b.bytes();
    const claimed = await errorOf(b.board.reopen('PLAT-1'));
    expect([claimed.code, claimed.holder]).toEqual(['CONFLICT', 'a']);
    expect(claimed.message).toBe(`${named(t)} is claimed by a since ${t.claimedAt}, not finished: its holder gives it back with release (a lapsed claim: reap)`);
    const guide = (await b.board.list())[1]!;
    const open = await errorOf(b.board.reopen(guide.id));
    expect([open.code, open.message]).toEqual(['CONFLICT', `${named(guide)} is open, not done or failed: nothing to reopen`]);
    expect((await errorOf(b.board.reopen('NOPE-1'))).code).toBe('NOT_FOUND');
    expect((await errorOf(b.board.reopen('PLAT-1', { by: 'no spaces' }))).code).toBe('USAGE');
    expect(await b.bytes()).toEqual(before);
  });

  it('is the CLI command reopen: one line naming the task, exit 0; 4 for a claim', async () => {
    const b = await kind.make(BOARD);
    await b.board.claim('PLAT-1', { by: 'a' });
    const claimed = mdclaim(['reopen', 'PLAT-1', '--file', b.location]);
    expect(claimed.status).toBe(4);
    expect(claimed.stderr).toMatch(/^error\[CONFLICT\]: PLAT-1 "Add login \{backend\}" is claimed by a since \S+, not finished: its holder gives it back with release/);
    await b.board.done('PLAT-1', { by: 'a' });
    const r = mdclaim(['reopen', 'PLAT-1', '--file', b.location]);
    expect([r.status, r.stdout, r.stderr]).toEqual([0, 'reopened PLAT-1 "Add login {backend}": open again\n', '']);
    expect((await b.bytes()).toString()).toBe(BOARD);
  });

  if (kind.name === 'pg') {
    it('is recorded in the history: released via reopen, from whoever finished it, with the reason it dropped', async () => {
      const b = await kind.make(BOARD);
      await b.board.claim('PLAT-1', { by: 'a' });
      await b.board.fail('PLAT-1', { by: 'a', reason: 'flaky' });
      await b.board.reopen('PLAT-1', { by: 'ops' });
      const events = await (b.board as PgBoard).history('PLAT-1');
      expect(events.map((e) => e.event)).toEqual(['imported', 'claimed', 'failed', 'released']);
      expect(events.at(-1)).toMatchObject({ event: 'released', via: 'reopen', by: 'ops', from: 'a', reason: 'flaky' });
      expect(mdclaim(['history', 'PLAT-1', '--file', b.location]).stdout.trimEnd().split('\n').at(-1)).toMatch(/released by ops from a: flaky {2}\[reopen\]$/);
    });
  }
});
