import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/index.js';
import { NOTIFY_CHANNEL } from '../src/pg/schema.js';
import { boardUrl, dropBoards, PG_URL, pgReachable, pgTitle, sql, uniqueBoard } from './helpers/pg.js';

// waitForWork: a runner with nothing to claim sleeps until a task may have become claimable.

/** Longer than the test's own timeout: only what a wait is for can end it in time. */
const HOUR = 3_600_000;

/** The wake-ups the channel carries for board `name` while `act` runs, up to a sentinel sent once it has (other boards' are theirs). */
async function wakeUpsDuring(name: string, act: () => Promise<unknown>): Promise<string[]> {
  const [board] = await sql<{ id: number }>('SELECT id FROM mdclaim.board WHERE name = $1', [name]);
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const heard: string[] = [];
    const sentinel = `sentinel-${process.pid}-${Date.now()}`;
    const reached = new Promise<void>((resolve) =>
      client.on('notification', (n) => {
        if (n.payload === sentinel) resolve();
        else if (n.payload === String(board!.id)) heard.push(n.payload);
      }),
    );
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    await act();
    await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, sentinel]);
    await reached;
    return heard;
  } finally {
    await client.end();
  }
}

const names: string[] = [];
afterAll(() => dropBoards(names));

describe.skipIf(!pgReachable)(pgTitle('waitForWork on the PostgreSQL board'), () => {
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
      // Nothing claimable has happened yet: a heartbeat is no event. A listener of the test's own hears what the
      // board's channel carries up to a sentinel sent after the heartbeat committed (delivered in commit order).
      const heard = await wakeUpsDuring(name, () => other.heartbeat(t.id, { by: 'h' }));
      expect(heard).toEqual([]);
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
