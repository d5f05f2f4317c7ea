import { PgBoard } from 'mdclaim';
import type pg from 'pg';
import { ownBackends, watchServer } from './pg-server.js';
import { boardUrl, client, counters, serverFigures } from './pg-hot-util.js';
import { boardText } from './util.js';

// The trade a HOT claim would make, measured with bare statements on the board's own table: the pick
// and the claim each index layout allows, on the shipped indexes and on HOT_LAYOUT.

/**
 * A layout under which a claim is a HOT update: no index names a column a claim changes (PostgreSQL 15
 * makes an update HOT only when no indexed column, predicate columns included, changes value). The
 * pick's index must then keep claimed rows, since only a column a claim leaves alone can say which
 * rows it holds; room is left on each page for the new version.
 */
const HOT_LAYOUT = `ALTER TABLE mdclaim.task SET (fillfactor = 60);
  ALTER TABLE mdclaim.task ADD COLUMN live boolean GENERATED ALWAYS AS (status IN ('open', 'blocked', 'claimed')) STORED;
  DROP INDEX mdclaim.task_first; DROP INDEX mdclaim.task_lapsing;
  CREATE INDEX task_live ON mdclaim.task (board, position) WHERE live`;

/** The bare pick each layout allows (the first claimable row in board order: waiting, or a lapsed claim). */
const PICK = {
  shipped: `SELECT uid FROM mdclaim.task WHERE board = $1 AND (status = 'open' OR (status = 'blocked' AND ready)) ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED`,
  hot: `SELECT uid FROM mdclaim.task WHERE board = $1 AND live
    AND (status = 'open' OR (status = 'blocked' AND ready) OR (status = 'claimed' AND expires_at <= now())) ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED`,
};

/** A claim of the pick's row: the columns a claim changes. */
const claimOf = (pick: string) => `UPDATE mdclaim.task SET status = 'claimed', by = $2, claimed_at = now(), lease_ms = 1800000,
  expires_at = now() + interval '30 minutes', marker = NULL, token = $2 WHERE uid = (${pick}) RETURNING uid`;

/** A task finished (failed rather than done, so that the ⏰ trigger and its board lock stay out of it). */
const FINISH = `UPDATE mdclaim.task SET status = 'failed', by = NULL, claimed_at = NULL, lease_ms = NULL, expires_at = NULL WHERE uid = $1`;

interface Plan {
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
  'Execution Time': number;
}

/** EXPLAIN ANALYZE of `q` (the median of 5 after 2, each rolled back): its time and shared buffers. */
async function explained(c: pg.Client, q: string, args: unknown[]): Promise<{ ms: number; buffers: number }> {
  const runs: Plan[] = [];
  for (let i = 0; i < 7; i++) {
    await c.query('BEGIN');
    const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${q}`, args);
    await c.query('ROLLBACK');
    if (i >= 2) runs.push((r.rows[0]['QUERY PLAN'] as Plan[])[0]!);
  }
  runs.sort((a, b) => a['Execution Time'] - b['Execution Time']);
  const m = runs[2]!;
  return { ms: +m['Execution Time'].toFixed(3), buffers: m.Plan['Shared Hit Blocks'] + m.Plan['Shared Read Blocks'] };
}

/** `claims` bare claims on a connection of their own, closed after: the task table's updates, and how many were HOT. */
async function bareClaims(url: string, sql: pg.Client, claim: string, board: number, claims: number): Promise<{ updates: number; hot: number }> {
  await new Promise((r) => setTimeout(r, 1500));
  await sql.query('SELECT pg_stat_reset()');
  const c = await client(url);
  for (let i = 0; i < claims; i++) await c.query(claim, [board, `p${i}`]);
  await c.end();
  const n = await counters(sql, claims);
  return { updates: n.upd, hot: n.hot };
}

/** `procs` connections at once making `total` bare claims between them, each finished at once with `finish`: what their backends did. */
async function bareConcurrent(url: string, sql: pg.Client, claim: string, board: number, procs: number, total: number, finish: boolean) {
  const mine = await ownBackends(sql);
  const cs = await Promise.all(Array.from({ length: procs }, () => client(url)));
  const watch = await watchServer(sql, mine);
  let left = total;
  await Promise.all(cs.map(async (c, i) => {
    while (left-- > 0) {
      const [row] = (await c.query<{ uid: string }>(claim, [board, `w${i}`])).rows;
      if (finish && row) await c.query(FINISH, [row.uid]);
    }
  }));
  const server = await watch.stop(total);
  await Promise.all(cs.map((c) => c.end()));
  return serverFigures(server);
}

async function refill(url: string, text: string): Promise<void> {
  const b = new PgBoard(boardUrl(url, 'probe'), { pool: 1 });
  await b.importDocument(Buffer.from(text), { replace: true });
  await b.close();
}

/**
 * For each layout: on the half-claimed board (its first `tasks / 2` held by others) the pick's plan,
 * `claims` claims' HOT share, and 8 connections draining `concurrent` more; then on a fresh board,
 * 8 connections each claiming and finishing at once (a queue: never more than 8 live claims).
 */
export async function hotProbe(url: string, sql: pg.Client, tasks: number, claims: number, concurrent: number): Promise<Record<string, unknown>> {
  const half = boardText(tasks, { claimedFirst: tasks / 2 });
  const out: Record<string, unknown> = { tasks, liveClaimsAhead: tasks / 2 };
  for (const layout of ['shipped', 'hot'] as const) {
    if (layout === 'hot') await sql.query(HOT_LAYOUT);
    await refill(url, half);
    const [{ id }] = (await sql.query(`SELECT id FROM mdclaim.board WHERE name = 'probe'`)).rows;
    await sql.query('VACUUM (ANALYZE) mdclaim.task');
    const claim = claimOf(PICK[layout]);
    const pick = await explained(sql, PICK[layout], [id]);
    const single = await bareClaims(url, sql, claim, id, claims);
    const drain = await bareConcurrent(url, sql, claim, id, 8, concurrent, false);
    await refill(url, boardText(tasks));
    await sql.query('VACUUM (ANALYZE) mdclaim.task');
    const queue = await bareConcurrent(url, sql, claim, id, 8, concurrent, true);
    out[layout] = { pick, ...single, eightDraining: drain, eightClaimAndFinish: queue };
  }
  return out;
}
