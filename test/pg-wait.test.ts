import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/index.js';
import { boardUrl, dropBoards, pgReachable, uniqueBoard } from './helpers/pg.js';

// waitForWork: a runner with nothing to claim sleeps until a task may have become claimable.

/** Longer than the test's own timeout: only what a wait is for can end it in time. */
const HOUR = 3_600_000;

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
      await runner.waitForWork(undefined, HOUR);
      expect(await runner.next({ by: 'r' })).toBeNull();
      let woke = false;
      const waiting = runner.waitForWork(undefined, HOUR).then(() => (woke = true));
      // Nothing claimable has happened yet: a heartbeat is no event.
      await other.heartbeat(t.id, { by: 'h' });
      await new Promise((r) => setTimeout(r, 300));
      expect(woke).toBe(false);
      await other.release(t.id, { by: 'h' });
      await waiting; // the hour-long timeout would fail the test first
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
      await b.waitForWork(undefined, HOUR);
      const ac = new AbortController();
      const waiting = b.waitForWork(ac.signal, HOUR);
      ac.abort();
      await waiting;
    } finally {
      await b.close();
    }
  });
});
