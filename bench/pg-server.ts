import type pg from 'pg';
import { serverCpuUs } from './cpu.js';

// Where the server's side of a PostgreSQL run goes: its backends' CPU per claim (read from /proc,
// so only where the server runs on this host), and what pg_stat_activity says they were doing,
// sampled through the run.

export interface ServerFigures {
  /** The claimers' backends' CPU per claim, µs; absent when their processes cannot be read here. */
  cpuUsPerClaim?: number;
  samples: number;
  /** Share of the backend samples by what each was doing: `CPU` (running, no wait event), `idle` (waiting for its client), else the wait event. */
  share: Record<string, number>;
  /** Share of samples with a backend waiting for a heavyweight lock (pg_locks not granted): row and transaction locks. */
  lockWaiting: number;
}

const SAMPLE_MS = 10;

/** The client backends of the current database other than `mine`. */
async function backends(sql: pg.Client, mine: ReadonlySet<number>): Promise<number[]> {
  const rows = (await sql.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  )).rows;
  return rows.map((r) => r.pid).filter((p) => !mine.has(p));
}

/**
 * Start watching the backends the claimers opened (every client backend of the database but
 * `mine`, the bench's own): call once they are connected, before they start; `stop` once they are
 * done, with the number of claims they made.
 */
export async function watchServer(sql: pg.Client, mine: ReadonlySet<number>): Promise<{ stop: (claims: number) => Promise<ServerFigures> }> {
  const pids = await backends(sql, mine);
  const cpu0 = pids.map(serverCpuUs);
  const counts = new Map<string, number>();
  let samples = 0;
  let lockWaits = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const rows = (await sql.query<{ what: string; waiting: boolean }>(
        `SELECT CASE WHEN a.state <> 'active' THEN 'idle' ELSE coalesce(a.wait_event_type || ':' || a.wait_event, 'CPU') END AS what,
           EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted) AS waiting
         FROM pg_stat_activity a WHERE a.pid = ANY($1::int[])`,
        [pids],
      )).rows;
      for (const r of rows) counts.set(r.what, (counts.get(r.what) ?? 0) + 1);
      samples += rows.length;
      lockWaits += rows.filter((r) => r.waiting).length;
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    stop: async (claims) => {
      stopped = true;
      await loop;
      const cpu1 = pids.map(serverCpuUs);
      const readable = cpu0.every((c) => c !== null) && cpu1.every((c) => c !== null);
      const spent = readable ? cpu1.reduce((s, c, i) => s + c! - cpu0[i]!, 0) : null;
      const share: Record<string, number> = {};
      for (const [k, n] of counts) share[k] = n / Math.max(samples, 1);
      return { ...(spent === null || claims === 0 ? {} : { cpuUsPerClaim: spent / claims }), samples, share, lockWaiting: lockWaits / Math.max(samples, 1) };
    },
  };
}

/** The pids of the bench's own connections to the database, before any claimer connects. */
export async function ownBackends(sql: pg.Client): Promise<Set<number>> {
  return new Set(await backends(sql, new Set()));
}
