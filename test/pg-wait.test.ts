import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/index.js';
import { boardUrl, dropBoards, pgReachable, uniqueBoard } from './helpers/pg.js';

// waitForWork: a runner with nothing to claim sleeps until a task may have become claimable.

const names: string[] = [];
afterAll(() => dropBoards(names));

describe.skipIf(!pgReachable)('waitForWork on the PostgreSQL board', () => {
  it('returns at once the first time, then wakes on a release made through another connection', async () => {
    const name = uniqueBoard('w');
    names.push(name);
    const runner = new PgBoard(boardUrl(name));
    const other = new PgBoard(boardUrl(name));
    try {
      await other.importDocument(Buffer.from('- [ ] one\n'));
      const t = (await other.next({ by: 'h' }))!;
      // Before its first LISTEN the runner cannot know what it missed: it returns at once.
      await runner.waitForWork(undefined, 60_000);
      expect(await runner.next({ by: 'r' })).toBeNull();
      let woke = false;
      const waiting = runner.waitForWork(undefined, 60_000).then(() => (woke = true));
      // Nothing claimable has happened yet: a heartbeat is no event.
      await other.heartbeat(t.id, { by: 'h' });
      await new Promise((r) => setTimeout(r, 300));
      expect(woke).toBe(false);
      await other.release(t.id, { by: 'h' });
      await waiting; // the 60 s timeout would fail the test first
      expect(await runner.next({ by: 'r' })).toMatchObject({ text: 'one', by: 'r' });
    } finally {
      await runner.close();
      await other.close();
    }
  });

  it('ends the wait when the signal aborts', async () => {
    const name = uniqueBoard('w');
    names.push(name);
    const b = new PgBoard(boardUrl(name));
    try {
      await b.importDocument(Buffer.from('- [x] done\n'));
      await b.waitForWork(undefined, 60_000);
      const ac = new AbortController();
      const waiting = b.waitForWork(ac.signal, 60_000);
      ac.abort();
      await waiting;
    } finally {
      await b.close();
    }
  });
});
