// npm run schema: write src/pg/schema.sql, the PostgreSQL board's live schema
// as the migrations leave it, dumped from a fresh database migrated to the
// latest version. The migrations stay the truth (one file each, never edited);
// this file is the one place to read the schema whole. A test
// (test/pg-migrations.test.ts) dumps again and compares.
//
// The server: MDCLAIM_PG_URL's, else postgres://postgres@127.0.0.1:5432.
// Needs pg_dump on PATH, of the server's major version, and a built dist/.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SCHEMA_FILE = fileURLToPath(new URL('../src/pg/schema.sql', import.meta.url));

/** The server a fresh database is made on. */
export function serverUrl() {
  const u = new URL(process.env['MDCLAIM_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  u.search = '';
  return u;
}

/** pg_dump's major version, or undefined when there is none on PATH. */
export function pgDumpMajor() {
  try {
    const out = execFileSync('pg_dump', ['--version'], { encoding: 'utf8' });
    return Number(/\b(\d+)(?:\.\d+)?/.exec(out)?.[1]);
  } catch {
    return undefined;
  }
}

/** The schema `mdclaim` of a database migrated to the latest version, as schema.sql holds it. */
export async function dumpSchema(server = serverUrl()) {
  const { default: pg } = await import('pg');
  const { openBoard } = await import('../dist/index.js');
  const name = `mdclaim_schema_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (statement) => {
    const c = new pg.Client({ connectionString: server.toString() });
    await c.connect();
    try {
      return (await c.query(statement)).rows;
    } finally {
      await c.end();
    }
  };
  const [{ major }] = await admin(`SELECT current_setting('server_version_num')::int / 10000 AS major`);
  await admin(`CREATE DATABASE ${name}`);
  try {
    const db = new URL(server);
    db.pathname = `/${name}`;
    const board = openBoard(`${db}?board=schema`);
    const { to } = await board.migrate();
    await board.close();
    const dump = execFileSync('pg_dump', ['--schema-only', '--schema=mdclaim', '--no-owner', '--no-privileges', `--dbname=${db}`], { encoding: 'utf8' });
    return [
      `-- The PostgreSQL board's schema at version ${to}, as the migrations in`,
      '-- src/pg/migrations/ leave a fresh database: generated, do not edit.',
      `-- Regenerate with npm run schema (pg_dump, PostgreSQL ${major}).`,
      '',
      normalise(dump),
    ].join('\n');
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** The dump without what changes from run to run or server to server: its header, session settings, restrict keys. */
export function normalise(dump) {
  const kept = dump.split('\n').filter((line) => !/^(-- Dumped (from|by) |SET |SELECT pg_catalog\.set_config\(|\\(un)?restrict )/.test(line));
  return `${kept.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (pgDumpMajor() === undefined) {
    process.stderr.write('error[SETUP]: pg_dump is not on PATH: install the PostgreSQL client of the server\'s major version, then run npm run schema again\n');
    process.exit(1);
  }
  writeFileSync(SCHEMA_FILE, await dumpSchema());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
