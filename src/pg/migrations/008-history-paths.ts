// Migration 8, as it shipped: never edit it; add the next one.
// History records path locks taken and let go by their holder (`locked`, `unlocked`, with the
// paths as `write:P` or `read:P`), as a file board's journal does: one vocabulary for both boards;
// and is read by time, for the durations and rates of status and watch.
export const sql = `
  ALTER TABLE mdclaim.history DROP CONSTRAINT history_event_check;
  ALTER TABLE mdclaim.history ADD CONSTRAINT history_event_check
    CHECK (event IN ('added', 'imported', 'claimed', 'renewed', 'taken over', 'done', 'failed', 'released', 'reaped', 'retried', 'parked', 'locked', 'unlocked'));
  ALTER TABLE mdclaim.history ADD COLUMN paths text[];
  -- A board's recent history, as status and watch read it (history --since too).
  CREATE INDEX history_at ON mdclaim.history (board, at);
`;
