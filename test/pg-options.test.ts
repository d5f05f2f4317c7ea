import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MdclaimError, openBoard, PgBoard } from '../src/index.js';
import { Db } from '../src/pg/db.js';
import { LOCK_CLASS } from '../src/pg/schema.js';
import { parsePgUrl } from '../src/pg/url.js';
import { mdclaimAsync, type CliResult } from './helpers/cli.js';
import { boardUrl, dropBoards, PG_URL, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';

// What the board options that speak of waiting and durability mean on a PostgreSQL board, and the ones that cannot hold there.

const DOC = '# Tasks\n\n- [ ] first\n- [ ] second\n';

const names: string[] = [];
const closing: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(closing.map((b) => b.close()));
  await dropBoards(names);
});

async function fresh(): Promise<{ url: string; name: string; board: PgBoard }> {
  const name = uniqueBoard('o');
  names.push(name);
  const url = boardUrl(name);
  const board = new PgBoard(url);
  closing.push(board);
  await board.importDocument(Buffer.from(DOC));
  return { url, name, board };
}

/** Another session, in a transaction that holds `lockSql` until `end()` (setup, not the thing under test). */
async function holding(lockSql: string, params: unknown[]): Promise<{ end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query('BEGIN');
  await client.query(lockSql, params);
  return {
    async end() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

const ROWS = 'SELECT 1 FROM mdclaim.task t JOIN mdclaim.board b ON b.id = t.board WHERE b.name = $1 FOR UPDATE OF t';
const STRUCTURE = `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, (SELECT id FROM mdclaim.board WHERE name = $1))`;

describe.skipIf(!pgReachable)(pgTitle('board options on a PostgreSQL board'), () => {
  it('gives up a wait for a row lock after --lock-timeout, exit 1 and LOCK_TIMEOUT, the board unchanged; free, the same claim works', async () => {
    const { url, name, board } = await fresh();
    const id = (await board.list())[0]!.id;
    const before = await board.exportDocument();
    const other = await holding(ROWS, [name]);
    let r: CliResult;
    const t0 = Date.now();
    try {
      r = await mdclaimAsync(['claim', id, '--by', 'w', '--file', url, '--lock-timeout', '300ms']);
    } finally {
      await other.end();
    }
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // It gave up after the 300 ms asked for, not the default 10 s: the message says which deadline it kept.
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: postgres:\/\/\S+: lock still held by another session after 300 ms\n$/);
    expect(r.stderr).toContain(`board=${name}`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300); // it did wait
    expect((await board.exportDocument()).equals(before)).toBe(true);
    const ok = await mdclaimAsync(['claim', id, '--by', 'w', '--file', url, '--lock-timeout', '300ms']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
  });

  it("bounds the wait for the board's structure lock too (add), and takes MDCLAIM_LOCK_TIMEOUT as its default", async () => {
    const { url, name, board } = await fresh();
    const before = await board.exportDocument();
    const other = await holding(STRUCTURE, [name]);
    let r: CliResult;
    try {
      r = await mdclaimAsync(['add', 'third', '--file', url], { MDCLAIM_LOCK_TIMEOUT: '250ms' });
    } finally {
      await other.end();
    }
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .* after 250 ms\n$/);
    expect((await board.exportDocument()).equals(before)).toBe(true);
  });

  it('throws LOCK_TIMEOUT from the library, where lockTimeout is given', async () => {
    const { url, name, board: setup } = await fresh();
    const id = (await setup.list())[1]!.id;
    const board = openBoard(url, { lockTimeout: 200 });
    closing.push(board);
    const other = await holding(ROWS, [name]);
    try {
      const err = await board.claim(id, { by: 'w' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MdclaimError);
      expect((err as MdclaimError).code).toBe('LOCK_TIMEOUT');
    } finally {
      await other.end();
    }
    expect((await board.claim(id, { by: 'w' })).status).toBe('claimed');
  });

  it('makes every commit wait for its flush when durable, even where the URL turned that off', async () => {
    const u = new URL(PG_URL);
    u.searchParams.set('options', '-c synchronous_commit=off');
    const target = parsePgUrl(u.toString());
    const show = async (durable: boolean) => {
      const db = new Db(target, { max: 1, connectTimeoutMs: 5_000, lockTimeoutMs: 10_000, durable });
      try {
        return await db.with(async (c) => (await c.query<{ synchronous_commit: string; lock_timeout: string }>('SELECT current_setting($1) AS synchronous_commit, current_setting($2) AS lock_timeout', ['synchronous_commit', 'lock_timeout']))[0]);
      } finally {
        await db.end();
      }
    };
    // The control: the URL's own setting holds without durable, so the check can see the difference.
    expect(await show(false)).toEqual({ synchronous_commit: 'off', lock_timeout: '10s' });
    expect(await show(true)).toEqual({ synchronous_commit: 'on', lock_timeout: '10s' });
  });

  it('refuses what only a file can do: write, lock, allowNetworkFs and now, as USAGE (exit 2) before connecting', async () => {
    const url = boardUrl(uniqueBoard('o'));
    for (const [name, value] of [['write', 'replace'], ['lock', 'mkdir'], ['allowNetworkFs', true], ['now', () => 0]] as const) {
      let err: unknown;
      try {
        openBoard(url, { [name]: value });
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(MdclaimError);
      expect((err as MdclaimError).code).toBe('USAGE');
      expect((err as Error).message).toMatch(new RegExp(`^${name} does not apply to a PostgreSQL board: `));
    }
    // Nothing is connected to: an unreachable server gives the same answer.
    const r = await mdclaimAsync(['next', '--by', 'w', '--write', 'replace', '--file', 'postgres://nobody@127.0.0.1:1/none?board=x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('error[USAGE]: write does not apply to a PostgreSQL board: a PostgreSQL board has no file to write in place or replace; every change is one transaction\n');
  });
});
