import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { LATEST, MIGRATIONS } from '../src/pg/schema.js';
import { dumpSchema, pgDumpMajor, SCHEMA_FILE } from '../scripts/schema.mjs';
import { PG_URL, pgReachable, pgTitle, sql } from './helpers/pg.js';

// Migrations are kept as graphile-worker keeps them: one file each, numbered,
// never edited once shipped; and the view every claim reads is the last one
// a migration states, however the database got there.

const SHIPPED = [
  'cb9bfe0354fcd5425b835aa5389e4ee0aefafcaafb1abc680a9d99e7c087fa10',
  '1833c57faaa6c0e4687eb5afc58ab4ff83a3e0171cd49d177f3a9b88eab77437',
  'e85869e1c24edfc0a6210ecd4597059ec3dfeec5b6b63264ae4033a0d2a06fdc',
  '02b762e2a190c4dc755dcdb21bc590ee6c1c6038b32507b827e4a19b6be7f196',
  '835fe825fa63f08c9249d7de37984f60a3ba0e22642f625cdfd9cdba221ffbc2',
  'abac789b0dd5b2efb568b27f8b4034d511a3d0957deb6349bf6e18527a3d16b2',
  '4cffb078f49672859bf325a0934b0ccb13c45c3b088c0edfc584fa209683ad1a',
  'fb6e3b573db8e070fd2ab46160663b8a0f937e2ed004b83b7f87e01e22f2a65f',
  '273c3831e73f1356bc7f506e1e84adfa3b0d2375ce4fa4121199dc4ac091367e',
];

describe('the PostgreSQL migrations', () => {
  it('are each as they shipped, byte for byte: a shipped migration is never edited, a change is the next one', () => {
    expect(MIGRATIONS.map((m) => createHash('sha256').update(m).digest('hex')).slice(0, SHIPPED.length)).toEqual(SHIPPED);
    expect(LATEST).toBe(MIGRATIONS.length);
  });

  it('are one file each, numbered from 001 without a gap, in the order they run', () => {
    const dir = new URL('../src/pg/migrations/', import.meta.url);
    const files = readdirSync(dir).filter((f) => /^\d{3}-[a-z0-9-]+\.(ts|sql)$/.test(f)).sort();
    expect(files.map((f) => Number(f.slice(0, 3)))).toEqual(MIGRATIONS.map((_, i) => i + 1));
    // Each file holds its migration's statements as they run.
    files.forEach((f, i) => expect(readFileSync(new URL(f, dir), 'utf8')).toContain(MIGRATIONS[i]!.trim().split('\n')[0]!.trim()));
  });
});

describe.skipIf(!pgReachable)(pgTitle('the view next reads'), () => {
  const dbs = MIGRATIONS.map((_, v) => [`mdclaim_v${v}_${process.pid}`, v] as const);
  const url = (db: string) => {
    const u = new URL(PG_URL);
    u.pathname = `/${db}`;
    return u;
  };
  afterAll(async () => {
    for (const [db] of dbs) await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  });

  it('is the latest migration\'s, in a database made now and in one upgraded from every earlier version', async () => {
    const { default: pg } = await import('pg');
    const defs: string[] = [];
    for (const [db, from] of dbs) {
      await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await sql(`CREATE DATABASE ${db}`);
      if (from > 0) {
        // A database as version `from` left it.
        const c = new pg.Client({ connectionString: url(db).toString() });
        await c.connect();
        await c.query(`CREATE SCHEMA mdclaim; CREATE TABLE mdclaim.meta (version int NOT NULL); INSERT INTO mdclaim.meta VALUES (${from})`);
        for (const m of MIGRATIONS.slice(0, from)) await c.query(m);
        await c.end();
      }
      const u = url(db);
      u.searchParams.set('board', 'b');
      const b = openBoard(u.toString());
      await b.add('one {writes: src/}');
      await b.add('two {reads: src/a.ts}');
      // next acts on the view's answer, and the view says why the other task waits.
      expect((await b.next({ by: 'dana' }))?.text).toBe('one {writes: src/}');
      const { blockers } = await b.survey();
      expect(blockers).toEqual([{ kind: 'claimed' }, { kind: 'path', hold: expect.objectContaining({ path: 'src/', mode: 'write', by: 'dana', kind: 'declared' }) }]);
      await b.close();
      const c = new pg.Client({ connectionString: url(db).toString() });
      await c.connect();
      const [row] = (await c.query(`SELECT pg_get_viewdef('mdclaim.task_view'::regclass) AS def, (SELECT version FROM mdclaim.meta) AS version`)).rows;
      await c.end();
      expect(row.version).toBe(LATEST);
      defs.push(row.def);
    }
    for (const def of defs) expect(def).toBe(defs[0]);
    expect(defs[0]).toContain('AS blocker');
  });
});

// src/pg/schema.sql is the live schema whole, dumped by npm run schema; the dump
// depends on the server's and pg_dump's versions, so it is compared only where
// both are the version that wrote the file.
const written = /PostgreSQL (\d+)\)/.exec(readFileSync(SCHEMA_FILE, 'utf8'))?.[1];
const serverMajor = pgReachable ? Number((await sql<{ v: string }>("SELECT current_setting('server_version_num') AS v"))[0]!.v) / 10000 | 0 : undefined;
const dumpMajor = pgDumpMajor();
const cannotCompare = !pgReachable
  ? 'no PostgreSQL server'
  : dumpMajor === undefined
    ? 'pg_dump is not on PATH'
    : String(serverMajor) !== written || String(dumpMajor) !== written
      ? `src/pg/schema.sql was dumped by PostgreSQL ${written}; here the server is ${serverMajor} and pg_dump ${dumpMajor}`
      : '';

describe('src/pg/schema.sql', () => {
  const title = 'is the schema the migrations make in a fresh database';
  it.skipIf(cannotCompare !== '')(pgReachable ? `${title}${cannotCompare ? ` (skipped: ${cannotCompare})` : ''}` : pgTitle(title), async () => {
    const server = new URL(PG_URL);
    server.search = '';
    const live = await dumpSchema(server);
    expect(live.split('\n'), 'src/pg/schema.sql is stale: run npm run schema and commit it').toEqual(readFileSync(SCHEMA_FILE, 'utf8').split('\n'));
  });
});
