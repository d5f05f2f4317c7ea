import { PgBoard } from '../../src/pg/board.js';
import pg from 'pg';
import { inject } from 'vitest';
import { PG_SKIPPED } from './pg-skipped.js';

/**
 * The database the PostgreSQL tests use: MDCLAIM_PG_URL, else one the run
 * created for itself on 127.0.0.1:5432 and drops at its end (global-setup.ts).
 */
export const PG_URL = process.env['MDCLAIM_PG_URL'] ?? inject('pgUrl');

async function probe(): Promise<string | null> {
  if (PG_URL === '') return inject('pgWhy');
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

const why = await probe();
if (why !== null) {
  // In CI the server is part of the run: a missing one is a failure, not a skip.
  const where = PG_URL || 'postgres://postgres@127.0.0.1:5432';
  if (process.env['CI'] === 'true') throw new Error(`PostgreSQL at ${where} is unreachable under CI=true: ${why}`);
  console.warn(`skipping the PostgreSQL board's tests: ${where} is unreachable (${why}); set MDCLAIM_PG_URL or start the server`);
}

export const pgReachable = why === null;

export { PG_SKIPPED };

/** A PostgreSQL test's title: as given, or naming why it is skipped when the server is unreachable. */
export function pgTitle(title: string): string {
  return why === null ? title : `${title} [${PG_SKIPPED}: ${why}]`;
}

let n = 0;

/** A board name no other test uses. */
export function uniqueBoard(prefix = 't'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${n++}`;
}

/** The URL of board `name` on the test server. */
export function boardUrl(name: string): string {
  const u = new URL(PG_URL);
  u.searchParams.set('board', name);
  return u.toString();
}

/** Run SQL on the test server directly (for setting up what a test needs, never for the thing under test). */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Remove boards (and their history) made by tests. */
export async function dropBoards(names: readonly string[]): Promise<void> {
  if (names.length === 0 || !pgReachable) return;
  await sql('DELETE FROM mdclaim.board WHERE name = ANY($1)', [names]);
}

/** Load `doc` into board `name` on the test server (setting up a test, not the thing under test). */
export async function importBoard(name: string, doc: string): Promise<void> {
  const b = new PgBoard(boardUrl(name));
  try {
    await b.importDocument(Buffer.from(doc));
  } finally {
    await b.close();
  }
}
