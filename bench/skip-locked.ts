import pg from 'pg';

// The plain PostgreSQL claimer the board is judged against: one table, one autocommit statement per claim.

const TABLE = 'skiplocked.task';

export const SKIP_LOCKED_CLAIM = `UPDATE ${TABLE} SET status = 'claimed', by = $1, claimed_at = now()
  WHERE id = (SELECT id FROM ${TABLE} WHERE status = 'open' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`;

/** Put the table back to `n` open rows (untimed), with the partial index its claim walks, and fresh statistics. */
export async function fillSkipLocked(c: pg.Client, n: number): Promise<void> {
  await c.query('CREATE SCHEMA IF NOT EXISTS skiplocked');
  await c.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (id int PRIMARY KEY, text text NOT NULL, status text NOT NULL, by text, claimed_at timestamptz)`);
  await c.query(`CREATE INDEX IF NOT EXISTS task_open ON ${TABLE} (id) WHERE status = 'open'`);
  await c.query(`TRUNCATE ${TABLE}`);
  await c.query(`INSERT INTO ${TABLE} (id, text, status) SELECT i, 'task ' || i, 'open' FROM generate_series(1, $1::int) i`, [n]);
  await c.query(`ANALYZE ${TABLE}`);
}

/** Holder per claimed task text, and the count of rows still open: what the drain check compares with the workers' logs. */
export async function readSkipLocked(c: pg.Client): Promise<{ holders: Map<string, string>; open: number }> {
  const rows = (await c.query<{ text: string; by: string | null }>(`SELECT text, by FROM ${TABLE}`)).rows;
  return { holders: new Map(rows.filter((r) => r.by !== null).map((r) => [r.text, r.by!])), open: rows.filter((r) => r.by === null).length };
}

/** One connection, opened at the first claim (as the board opens its own) or before the round (warm), and the claim as a named prepared statement. */
export function skipLockedClaimer(url: string): { claim: (by: string) => Promise<string | null>; connect: () => Promise<void>; close: () => Promise<void> } {
  const client = new pg.Client({ connectionString: url });
  let connected: Promise<void> | null = null;
  const connect = () => (connected ??= client.connect().then(() => {}));
  return {
    connect,
    claim: async (by) => {
      await connect();
      const r = await client.query<{ id: number }>({ name: 'claim', text: SKIP_LOCKED_CLAIM, values: [by] });
      return r.rows[0] ? `task ${r.rows[0].id}` : null;
    },
    close: () => client.end(),
  };
}
