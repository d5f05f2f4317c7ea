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
  via: string;
  text: string;
}

/**
 * Every event of the task(s) an id names, oldest first: by text hash, so
 * the history of a line survives a re-import; by tracker key too.
 */
export async function historyOf(c: Conn, board: number, id: string): Promise<HistoryEvent[]> {
  const rows = await c.query<EventRow>(
    `SELECT h.seq, to_char(h.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, h.event, h.by, h.prior_by,
       to_char(h.claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS claimed_at, h.lease_ms, h.commit, h.reason, h.via, h.text
     FROM mdclaim.history h WHERE h.board = $1 AND (h.hash = $2 OR h.key = $2) ORDER BY h.seq`,
    [board, id],
  );
  return rows.map((r) => {
    const e: HistoryEvent = { seq: Number(r.seq), at: r.at, event: r.event, via: r.via, text: r.text };
    if (r.by !== null) e.by = r.by;
    if (r.prior_by !== null) e.from = r.prior_by;
    if (r.claimed_at !== null) e.claimedAt = r.claimed_at;
    if (r.lease_ms !== null) e.lease = formatLease(Number(r.lease_ms));
    if (r.commit !== null) e.commit = r.commit;
    if (r.reason !== null) e.reason = r.reason;
    return e;
  });
}
