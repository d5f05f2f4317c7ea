import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdclaimError, openBoard } from '../src/index.js';
import { mdclaim, mdclaimAsync } from './helpers/cli.js';
import { PG_URL, pgReachable, pgTitle, sql } from './helpers/pg.js';
import { LATEST, MIGRATIONS } from '../src/pg/schema.js';
import { boardFile } from './helpers/tmp.js';

// The schema makes itself on first use, once, however many processes start at once; errors never show a password.

const DB = `mdclaim_schema_${process.pid}`;
const dbUrl = (board: string) => {
  const u = new URL(PG_URL);
  u.pathname = `/${DB}`;
  u.searchParams.set('board', board);
  return u.toString();
};

describe.skipIf(!pgReachable)(pgTitle('the PostgreSQL schema'), () => {
  beforeAll(async () => {
    await sql(`DROP DATABASE IF EXISTS ${DB}`);
    await sql(`CREATE DATABASE ${DB}`);
  });
  afterAll(async () => {
    await sql(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  });

  it('creates itself once when eight processes first use an empty database at the same time', async () => {
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const imports = await Promise.all(Array.from({ length: 8 }, (_, i) => mdclaimAsync(['import', file, '--to', dbUrl(`b${i}`)])));
    for (const r of imports) expect([r.status, r.stderr]).toEqual([0, '']);
    expect(mdclaim(['migrate', '--file', dbUrl('b0')]).stdout).toBe(`schema is at version ${LATEST}, nothing to do\n`);
    const u = new URL(PG_URL);
    u.pathname = `/${DB}`;
    const b = openBoard(u.toString().replace(/\?.*$/, '') + '?board=b3');
    expect((await b.list()).map((t) => t.text)).toEqual(['one', 'two']);
    await b.close();
  });

  it('refuses a schema newer than this mdclaim, as an I/O error', async () => {
    const u = new URL(PG_URL);
    u.pathname = `/${DB}`;
    const b = openBoard(dbUrl('b1'));
    await b.list();
    await b.close();
    // Bump the version directly, as a newer mdclaim would have.
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: u.toString().replace(/\?.*$/, '') });
    await c.connect();
    await c.query('UPDATE mdclaim.meta SET version = 99');
    await c.end();
    const r = mdclaim(['list', '--file', dbUrl('b1')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error\\[IO\\]: postgres://\\S+: the mdclaim schema there is version 99, newer than this mdclaim knows \\(${LATEST}\\): upgrade mdclaim\\n$`));
  });
});

describe.skipIf(!pgReachable)(pgTitle('the PostgreSQL schema, upgraded'), () => {
  const OLD = `mdclaim_upgrade_${process.pid}`;
  afterAll(async () => {
    await sql(`DROP DATABASE IF EXISTS ${OLD} WITH (FORCE)`);
  });

  it('reads the paths the tasks of a version 1 board declare when it upgrades to path locks', async () => {
    await sql(`DROP DATABASE IF EXISTS ${OLD}`);
    await sql(`CREATE DATABASE ${OLD}`);
    const u = new URL(PG_URL);
    u.pathname = `/${OLD}`;
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    // A database as version 1 left it, holding a board whose tasks declare paths.
    await c.query('CREATE SCHEMA mdclaim; CREATE TABLE mdclaim.meta (version int NOT NULL); INSERT INTO mdclaim.meta VALUES (1)');
    await c.query(MIGRATIONS[0]!);
    await c.query(`INSERT INTO mdclaim.board (name) VALUES ('old')`);
    const row = (pos: number, text: string) =>
      c.query(
        `INSERT INTO mdclaim.task (board, position, lead, body, text_end, lead_breaks, body_breaks, text, hash, tags, status)
         VALUES (1, $1, convert_to('- ', 'UTF8'), convert_to(' ' || $2 || E'\\n', 'UTF8'), 1 + length(convert_to($2, 'UTF8')), 0, 1, $2, left(md5($2), 12), '{}', 'open')`,
        [pos, text],
      );
    await c.query(`UPDATE mdclaim.board SET tail = ''`);
    await row(1, 'A {writes: ./src//a.ts}');
    await row(2, 'B {reads: src/}');
    await c.end();
    u.searchParams.set('board', 'old');
    const b = openBoard(u.toString());
    const a = await b.next({ by: 'dana' });
    expect(a?.writes).toEqual(['src/a.ts']);
    // B reads what A writes: not claimable while A's claim is live.
    expect(await b.next({ by: 'eve' })).toBeNull();
    await b.close();
  });
});

describe('PostgreSQL errors', () => {
  it('reports an unreachable server as exit 1, naming user, host, port and database, never the password', async () => {
    const r = mdclaim(['next', '--by', 'a', '--file', 'postgres://alice:s3cret-pw@127.0.0.1:1/jobs?board=x']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('error[IO]: cannot connect to postgres://alice@127.0.0.1:1/jobs (connection refused)\n');
    const lib = await openBoard('postgres://alice:s3cret-pw@127.0.0.1:1/jobs').list().catch((e: unknown) => e);
    expect(lib).toBeInstanceOf(MdclaimError);
    expect((lib as MdclaimError).code).toBe('IO');
    expect((lib as MdclaimError).message).not.toContain('s3cret');
  });

  it('refuses a malformed URL as a usage error, without echoing the password', () => {
    for (const url of ['postgres://alice:s3cret@/db', 'postgres://alice:s3cret@h:99999/db', 'postgres://h/db?board=no%20spaces', 'postgres://h/db?board=a&board=b', 'postgres://h/a/b']) {
      const r = mdclaim(['list', '--file', url]);
      expect([url, r.status]).toEqual([url, 2]);
      expect(r.stderr).toMatch(/^error\[USAGE\]: .+\n$/);
      expect(r.stderr).not.toContain('s3cret');
    }
  });

  it.skipIf(!pgReachable)(pgTitle('says a board that does not exist is missing, as a missing file is'), () => {
    const u = new URL(PG_URL);
    u.searchParams.set('board', 'no-such-board-here');
    const r = mdclaim(['next', '--by', 'a', '--file', u.toString()]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[IO\]: postgres:\/\/\S+\?board=no-such-board-here: no such board \(create it with mdclaim import FILE --to URL, or mdclaim add\)\n$/);
  });

  it('refuses the PostgreSQL-only commands on a file board, and import without --to', () => {
    const file = boardFile('- [ ] one\n');
    expect(mdclaim(['export', '--file', file])).toMatchObject({ status: 2, stderr: 'error[USAGE]: export needs a PostgreSQL board: --file postgres://user@host:port/db?board=NAME\n' });
    expect(mdclaim(['migrate', '--file', file]).status).toBe(2);
    expect(mdclaim(['import', file]).status).toBe(2);
  });
});
