import { closeSync, fdatasyncSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { flockSync } from 'fs-ext';
import lockfile from 'proper-lockfile';
import { openBoard, type BoardOptions } from 'mdclaim';
import { boardText, CLAIMED, sleep, stamp } from './util.js';

/** One way of handing out the first open task of a board; every claimer returns the claimed task's text. */
export interface Claimer {
  readonly name: string;
  /** Put the board back to `n` open tasks (untimed). */
  fill(): void;
  /** Claim the first open task: its text, or null when none is left. */
  claim(by: string): Promise<string | null> | string | null;
  close(): void;
}

export async function claimOnce(c: Claimer, by: string): Promise<string | null> {
  const r = c.claim(by);
  // Synchronous claimers are not charged a microtask they would not pay in real use.
  return r instanceof Promise ? await r : r;
}

export function mdclaimClaimer(name: string, dir: string, n: number, options: BoardOptions): Claimer {
  const path = join(dir, 'tasks.md');
  const board = openBoard(path, options);
  return {
    name,
    fill: () => writeFileSync(path, boardText(n)),
    claim: async (by) => (await board.next({ by }))?.text ?? null,
    close: () => {},
  };
}

export type Sync = 'NORMAL' | 'FULL';

/** A WAL database of `n` open tasks with the partial index the claim query walks. */
export function createTaskDb(path: string, n: number, sync: Sync): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync}`);
  db.exec('CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, text TEXT NOT NULL, owner TEXT, claimed_at TEXT)');
  db.exec('CREATE INDEX IF NOT EXISTS tasks_open ON tasks(id) WHERE owner IS NULL');
  fillTaskDb(db, n);
  return db;
}

export function fillTaskDb(db: Database.Database, n: number): void {
  const insert = db.prepare('INSERT INTO tasks (id, text) VALUES (?, ?)');
  db.transaction(() => {
    db.exec('DELETE FROM tasks');
    for (let i = 1; i <= n; i++) insert.run(i, `task ${i}`);
  })();
  // Each round starts from an empty WAL, as the file boards start from a fresh file.
  db.pragma('wal_checkpoint(TRUNCATE)');
}

export const CLAIM_SQL =
  'UPDATE tasks SET owner = ?, claimed_at = ? WHERE id = (SELECT id FROM tasks WHERE owner IS NULL ORDER BY id LIMIT 1) RETURNING *';

export function sqliteClaim(db: Database.Database): (by: string) => string | null {
  const stmt = db.prepare<[string, string], { text: string }>(CLAIM_SQL);
  return (by) => stmt.get(by, stamp(Date.now()))?.text ?? null;
}

export function sqliteClaimer(name: string, dir: string, n: number, sync: Sync): Claimer {
  const db = createTaskDb(join(dir, 'tasks.db'), n, sync);
  const claim = sqliteClaim(db);
  return { name, fill: () => fillTaskDb(db, n), claim, close: () => db.close() };
}

/** Where the first `- [ ] ` line starts, or -1. */
function firstOpen(src: string): number {
  if (src.startsWith('- [ ] ')) return 0;
  const i = src.indexOf('\n- [ ] ');
  return i < 0 ? -1 : i + 1;
}

/** proper-lockfile's mkdir lock, retried with the same capped, jittered back-off mdclaim uses, so only the lock differs. */
async function lockWithBackoff(path: string): Promise<() => void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return lockfile.lockSync(path, { realpath: false, stale: 10_000 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    }
    await sleep(Math.random() * Math.min(2 ** attempt, 25));
  }
}

/** The hand-rolled claimer: lock, read the file, mark the first open line, write the whole file back, unlock. */
export async function lockfileClaim(path: string, by: string, durable: boolean): Promise<string | null> {
  const unlock = await lockWithBackoff(path);
  try {
    const src = readFileSync(path, 'utf8');
    const at = firstOpen(src);
    if (at < 0) return null;
    const eol = src.indexOf('\n', at);
    const text = src.slice(at + 6, eol < 0 ? src.length : eol);
    const next = `${src.slice(0, at)}- [${CLAIMED}, ${by}, ${stamp(Date.now())}] ${src.slice(at + 6)}`;
    if (durable) {
      const fd = openSync(path, 'w');
      try {
        writeSync(fd, next);
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } else {
      writeFileSync(path, next);
    }
    return text;
  } finally {
    unlock();
  }
}

export function lockfileClaimer(name: string, dir: string, n: number, durable: boolean): Claimer {
  const path = join(dir, 'tasks.md');
  return { name, fill: () => writeFileSync(path, boardText(n)), claim: (by) => lockfileClaim(path, by, durable), close: () => {} };
}

const OPEN_LINE = Buffer.from('\n- [ ] ');
const PAGE = 4096;

/**
 * The floor: what any correct file claimer that keeps the board whole on disk
 * must pay. flock on the board's directory (blocking: the kernel queues
 * waiters fairly), one read, an indexOf, then mdclaim's write rule: one
 * in-place pwrite when the change and the tail it shifts stay within one
 * page, else the whole new file by temp file + rename. No parsing, no
 * read-back.
 */
export function floorClaim(path: string, by: string, durable: boolean): string | null {
  const dir = openSync(dirname(path), 'r');
  try {
    flockSync(dir, 'ex');
    const fd = openSync(path, 'r+');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.allocUnsafe(size);
      let off = 0;
      while (off < size) {
        const got = readSync(fd, buf, off, size - off, off);
        if (got === 0) break;
        off += got;
      }
      const nl = buf.subarray(0, off).indexOf(OPEN_LINE);
      if (nl < 0) return null;
      const at = nl + 3; // the `[` of `[ ]`
      const eol = buf.indexOf(0x0a, at);
      const text = buf.toString('utf8', at + 4, eol < 0 ? off : eol);
      const marker = Buffer.from(`[${CLAIMED}, ${by}, ${stamp(Date.now())}]`);
      const tail = Buffer.concat([marker, buf.subarray(at + 3, off)]);
      if (Math.floor(at / PAGE) === Math.floor((at + tail.length - 1) / PAGE)) {
        writeSync(fd, tail, 0, tail.length, at);
        if (durable) fdatasyncSync(fd);
      } else {
        const tmp = `${path}.${process.pid}.tmp`;
        const out = openSync(tmp, 'wx', 0o644);
        try {
          const next = Buffer.concat([buf.subarray(0, at), tail]);
          writeSync(out, next, 0, next.length, 0);
          if (durable) fdatasyncSync(out);
        } finally {
          closeSync(out);
        }
        renameSync(tmp, path);
        if (durable) fsyncSync(dir);
      }
      return text;
    } finally {
      closeSync(fd);
    }
  } finally {
    // Closing the directory's descriptor lets the lock go.
    closeSync(dir);
  }
}

export function floorClaimer(name: string, dir: string, n: number, durable: boolean): Claimer {
  const path = join(dir, 'tasks.md');
  return { name, fill: () => writeFileSync(path, boardText(n)), claim: (by) => floorClaim(path, by, durable), close: () => {} };
}
