// The history row every change writes, in the same statement as the change.

export interface Logged {
  /** The CTE holding the changed rows (with the task's board, uid, hash, key, text). */
  from: string;
  /** SQL for the event name, e.g. `'done'` or a CASE. */
  event: string;
  by: string;
  priorBy?: string;
  claimedAt?: string;
  leaseMs?: string;
  commit?: string;
  reason?: string;
  /** SQL for the attempts the row counts after the change (default its `attempts` column, for a CTE of changed rows). */
  attempts?: string;
  via: string;
}

/** A data-modifying CTE (`logged AS (INSERT …)`): PostgreSQL runs it whether or not the query reads it. */
export function logged(l: Logged): string {
  return `logged AS (
    INSERT INTO mdclaim.history (board, task, hash, key, text, event, by, prior_by, claimed_at, lease_ms, commit, reason, attempts, via)
    SELECT board, uid, hash, key, text, ${l.event}, ${l.by}, ${l.priorBy ?? 'NULL'}, ${l.claimedAt ?? 'NULL'}, ${l.leaseMs ?? 'NULL'},
      ${l.commit ?? 'NULL'}, ${l.reason ?? 'NULL'}, ${l.attempts ?? 'attempts'}, '${l.via}'
    FROM ${l.from}
  )`;
}
