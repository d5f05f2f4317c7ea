import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/index.js';
import { boardUrl, dropBoards, importBoard, PG_URL, pgReachable, pgTitle, sql, uniqueBoard } from './helpers/pg.js';

// next is one statement in autocommit: one round trip, and no COMMIT to ask
// about when the connection is lost. Lost after the server committed, the
// claim is found again by the token it was made with, once the lost session
// runs no statement; lost before, it is made again. Either way the caller
// gets the one claim that was made, and no claim is left on the board that
// nobody was told of. The connection here is lost for real: a TCP relay
// between the board and the server swallows the server's answer to the claim
// and closes both ends. A holder's write (done, fail, release, retry) is
// run the same way and found again the same way.

const names: string[] = [];
afterAll(() => dropBoards(names));

/** A relay to the test server; `drop()` arms it to swallow the next answer from the server and cut the connection. */
async function relay(): Promise<{ url(board: string): string; drop(): Promise<void>; close(): Promise<void> }> {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  let armed: (() => void) | null = null;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (armed) {
        const cut = armed;
        armed = null;
        client.destroy();
        upstream.destroy();
        cut();
        return;
      }
      client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url(board) {
      const u = new URL(boardUrl(board));
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    drop: () => new Promise<void>((r) => (armed = r)),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe.skipIf(!pgReachable)(pgTitle('next as one statement, with the connection lost under it'), () => {
  it('gives the caller the claim the server made when the answer is lost, and leaves no claim nobody was told of', async () => {
    const name = uniqueBoard('alone');
    names.push(name);
    await importBoard(name, '# T\n\n' + Array.from({ length: 12 }, (_, i) => `- [ ] task ${i}\n`).join(''));
    const r = await relay();
    const board = new PgBoard(r.url(name), { pool: 1 });
    try {
      const told: string[] = [];
      // A first claim opens and warms the one connection, so the next statement is all the next call sends.
      told.push((await board.next({ by: 'w' }))!.text);
      for (let i = 0; i < 4; i++) {
        const cut = r.drop();
        const t = await board.next({ by: 'w' });
        await cut;
        expect(t).not.toBeNull();
        told.push(t!.text);
      }
      const held = (await board.list()).filter((t) => t.status === 'claimed').map((t) => t.text);
      expect(held.sort()).toEqual([...told].sort());
      expect(new Set(told).size).toBe(told.length);
      // Each claim was logged once: a claim found again by its token is not made a second time.
      const logged = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM mdclaim.history h JOIN mdclaim.board b ON b.id = h.board WHERE b.name = $1 AND h.event = 'claimed'`,
        [name],
      );
      expect(Number(logged[0]!.n)).toBe(told.length);

      // A holder's write is one statement too: done, with its answer lost, is done once, and said to be.
      const [first] = (await board.list()).filter((t) => t.status === 'claimed');
      const cut = r.drop();
      const done = await board.done(first!.id, { by: 'w' });
      await cut;
      expect(done.status).toBe('done');
      const events = await sql<{ event: string }>(
        `SELECT h.event FROM mdclaim.history h JOIN mdclaim.board b ON b.id = h.board WHERE b.name = $1 AND h.hash = $2 ORDER BY h.seq`,
        [name, first!.id],
      );
      expect(events.map((e) => e.event)).toEqual(['imported', 'claimed', 'done']);
    } finally {
      await board.close();
      await r.close();
    }
  });
});
