import type { HistoryRequest } from '../board/history.js';
import type { HistoryEvent } from '../board/types.js';
import type { Conn } from './db.js';
import { formatLease } from './rows.js';

interface EventRow {
  seq: string;
  at: string;
  event: HistoryEvent['event'];
  by: string | null;
  prior_by: string | null;
  claimed_at: string | null;
  lease_ms: string | null;
  commit: string | null;
  reason: string | null;
  attempts: number | null;
  via: string;
  text: string;
  id: string;
  paths: string[] | null;
}

/**
 * The board's events the request names, oldest first: of the task(s) an id
 * names by text hash, so the history of a line survives a re-import, and by
 * tracker key too; since an instant; by one name. An event's id is its
 * task's key, else its hash (as a file board's journal names it).
 */
export async function historyOf(c: Conn, board: number, r: HistoryRequest): Promise<HistoryEvent[]> {
  const rows = await c.query<EventRow>(
    `SELECT h.seq, to_char(h.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, h.event, h.by, h.prior_by,
       to_char(h.claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS claimed_at, h.lease_ms, h.commit, h.reason, h.attempts, h.via, h.text,
       coalesce(h.key, h.hash) AS id, h.paths
     FROM mdclaim.history h WHERE h.board = $1 AND ($2::text IS NULL OR h.hash = $2 OR h.key = $2)
       AND ($3::bigint IS NULL OR h.at >= to_timestamp($3::bigint / 1000.0)) AND ($4::text IS NULL OR h.by = $4)
     ORDER BY h.seq`,
    [board, r.id ?? null, r.since ?? null, r.by ?? null],
  );
  return rows.map((r) => {
    const e: HistoryEvent = { seq: Number(r.seq), at: r.at, event: r.event, id: r.id, via: r.via, text: r.text };
    if (r.by !== null) e.by = r.by;
    if (r.prior_by !== null) e.from = r.prior_by;
    if (r.claimed_at !== null) e.claimedAt = r.claimed_at;
    if (r.lease_ms !== null) e.lease = formatLease(Number(r.lease_ms));
    if (r.commit !== null) e.commit = r.commit;
    if (r.reason !== null) e.reason = r.reason;
    if (r.attempts !== null) e.attempts = r.attempts;
    if (r.paths !== null) e.paths = r.paths;
    return e;
  });
}
