import { Db, type Listener } from './db.js';
import { listenBoard } from './listen.js';
import { parsePgUrl, type PgTarget } from './url.js';

/** How often the board's change mark is read, for the changes that notify nobody. */
export const PG_POLL_MS = 1000;

// The board's change mark: its last history event and its path locks. A claim, a
// renewal or a fail notifies nobody (runners wait only for work; a NOTIFY in every
// claim's commit would queue the claims on the server's notification lock).
const MARK = `SELECT b.id,
  (SELECT max(h.seq) FROM mdclaim.history h WHERE h.board = b.id)::text AS seq,
  (SELECT count(*)::text || ':' || coalesce(max(l.seq), 0)::text FROM mdclaim.path_lock l JOIN mdclaim.task t ON t.uid = l.task WHERE t.board = b.id) AS locks
FROM mdclaim.board b WHERE b.name = $1`;

/**
 * Tells a watcher when a PostgreSQL board changed: at once on the board's
 * NOTIFY (a done, release, reap, add or import), and within PG_POLL_MS for
 * every other change, through a cheap read of the change mark. A dropped
 * connection is made again on the next poll; it never writes.
 */
export class PgChanges {
  private readonly target: PgTarget;
  private readonly db: Db;
  private listener: Promise<Listener | null> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private mark = '';
  private closed = false;
  private polling: Promise<void> = Promise.resolve();
  private heard: () => void = () => {};
  /** Settles once the first LISTEN is in place (for a caller that must not miss the next NOTIFY). */
  readonly listening = new Promise<void>((resolve) => (this.heard = resolve));

  constructor(url: string | PgTarget, private readonly pollMs = PG_POLL_MS) {
    this.target = typeof url === 'string' ? parsePgUrl(url) : url;
    this.db = new Db(this.target, { max: 1, connectTimeoutMs: this.target.connectTimeoutMs ?? 10_000, lockTimeoutMs: 10_000, durable: false });
  }

  start(poke: () => void): void {
    const poll = async () => {
      try {
        const rows = await this.db.with((c) => c.query<{ id: number; seq: string | null; locks: string }>(MARK, [this.target.board]));
        const row = rows[0];
        const mark = row === undefined ? 'none' : `${row.id}/${row.seq ?? ''}/${row.locks}`;
        if (mark !== this.mark) {
          this.mark = mark;
          poke();
        }
        if (row !== undefined) this.listener ??= this.listen(String(row.id), poke);
      } catch {
        // The server is away: the watcher's own read says so on screen; try again next time.
      }
      if (!this.closed) this.timer = setTimeout(() => (this.polling = poll()), this.pollMs);
    };
    this.polling = poll();
  }

  private async listen(board: string, poke: () => void): Promise<Listener | null> {
    try {
      const client = await listenBoard(this.db, board, poke, () => {
        this.listener = null;
      });
      this.heard();
      if (this.closed) await client.end();
      return client;
    } catch {
      this.listener = null;
      return null;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    const client = await this.listener;
    this.listener = null;
    await client?.end().catch(() => {});
    await this.db.end().catch(() => {});
  }
}
