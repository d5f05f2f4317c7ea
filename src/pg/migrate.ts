import { MdclaimError } from '../errors.js';
import type { Conn, Db } from './db.js';
import { AFTER, LATEST, LOCK_CLASS, MIGRATIONS } from './schema.js';

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
      await AFTER[v]?.(c);
    }
    if (from < LATEST) await c.query('UPDATE mdclaim.meta SET version = $1', [LATEST]);
    return { from, to: LATEST };
  }, true);
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
