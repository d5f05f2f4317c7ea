import { MdclaimError } from '../errors.js';
import { parseDeclared } from '../format/declared.js';
import type { Conn, Db } from './db.js';
import { LATEST, LOCK_CLASS, MIGRATIONS } from './schema.js';

/** The schema version a database holds: 0 when mdclaim has never run there. */
export async function schemaVersion(c: Conn): Promise<number> {
  try {
    const rows = await c.query<{ version: number }>('SELECT version FROM mdclaim.meta');
    return rows[0]?.version ?? 0;
  } catch (err) {
    const code = (err as { code?: string }).code;
    // No schema or no table yet: a database mdclaim has not used.
    if (code === '3F000' || code === '42P01') return 0;
    throw err;
  }
}

export interface Migrated {
  from: number;
  to: number;
}

/**
 * Bring the schema to the latest version, in one transaction under an
 * advisory lock, so that many processes starting at once create it once.
 */
export async function migrate(db: Db): Promise<Migrated> {
  return db.with(async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1, 0)', [LOCK_CLASS]);
    await c.query('CREATE SCHEMA IF NOT EXISTS mdclaim');
    await c.query('CREATE TABLE IF NOT EXISTS mdclaim.meta (version int NOT NULL)');
    const from = await schemaVersion(c);
    tooNew(db, from);
    if (from === 0) await c.query('INSERT INTO mdclaim.meta (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM mdclaim.meta)');
    for (let v = from; v < LATEST; v++) {
      await c.query(MIGRATIONS[v]!);
      if (v + 1 === 2) await declaredPaths(c);
    }
    if (from < LATEST) await c.query('UPDATE mdclaim.meta SET version = $1', [LATEST]);
    return { from, to: LATEST };
  }, true);
}

/**
 * Migration 2 adds the paths a task's text declares: read them from the text
 * of the rows already there, with the file board's parser (SQL cannot run it).
 */
async function declaredPaths(c: Conn): Promise<void> {
  const rows = await c.query<{ uid: string; text: string }>(`SELECT uid, text FROM mdclaim.task WHERE text ~ '\\{[ \\t]*(writes|reads)[ \\t]*:'`);
  for (const r of rows) {
    const d = parseDeclared(r.text);
    if (d.writes.length > 0 || d.reads.length > 0) await c.query('UPDATE mdclaim.task SET writes = $2, reads = $3 WHERE uid = $1', [r.uid, d.writes, d.reads]);
  }
}

/** Check the schema once per board object: create or upgrade it on first use. */
export async function ensureSchema(db: Db): Promise<void> {
  const version = await db.with(schemaVersion);
  tooNew(db, version);
  if (version < LATEST) await migrate(db);
}

function tooNew(db: Db, version: number): void {
  if (version > LATEST) {
    throw new MdclaimError('IO', `${db.target.display}: the mdclaim schema there is version ${version}, newer than this mdclaim knows (${LATEST}): upgrade mdclaim`);
  }
}
