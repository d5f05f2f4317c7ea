import pg from 'pg';

// The PostgreSQL board beside the file board and SQLite: the same server the tests use.

export const PG_URL = process.env['MDCLAIM_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const made: string[] = [];

/** Null when the server answers, else why not (the bench then leaves PostgreSQL out and says so). */
export async function pgUnreachable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  try {
    await c.connect();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * A board of its own for one bench case. `durable: false` asks for
 * synchronous_commit=off (the server still never tears a row; a power loss
 * may lose the last commits), the counterpart of the file board's default
 * and of SQLite's synchronous=NORMAL.
 */
export function pgBoardUrl(label: string, durable: boolean): string {
  const name = `bench_${label}_${process.pid}_${made.length}`;
  made.push(name);
  const u = new URL(PG_URL);
  u.searchParams.set('board', name);
  if (!durable) u.searchParams.set('options', '-c synchronous_commit=off');
  return u.toString();
}

/** Drop the bench's boards (and their history). */
export async function dropPgBoards(): Promise<void> {
  if (made.length === 0) return;
  const c = new pg.Client({ connectionString: PG_URL });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('DELETE FROM mdclaim.board WHERE name = ANY($1)', [made.splice(0)]);
  } catch {
    // the server went away: nothing to drop
  } finally {
    await c.end().catch(() => {});
  }
}
