import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { openBoard } from 'mdclaim';
import { floorClaim, lockfileClaim, sqliteClaim } from './claimers.js';
import { clock, toUs } from './util.js';

/** What the parent sends a contended-case worker. */
export interface WorkerJob {
  /** mdclaim-koffi: mdclaim in a process where fs-ext cannot load (bench/no-fs-ext.cjs), so its flock comes through koffi. */
  kind: 'mdclaim' | 'mdclaim-koffi' | 'sqlite' | 'lockfile' | 'floor' | 'postgres';
  path: string;
  by: string;
  log: string;
}

/** What a worker sends back when its board is drained. */
export interface WorkerReport {
  by: string;
  claims: number;
  /** Monotonic ns (as strings: JSON has no bigint) of the first claim's start and the last claim's end. */
  start: string;
  end: string;
  latUs: number[];
  /** SQLITE_BUSY errors that escaped busy_timeout and were retried. */
  busy: number;
}

function claimerFor(job: WorkerJob): () => Promise<string | null> | string | null {
  switch (job.kind) {
    case 'mdclaim':
    case 'mdclaim-koffi': {
      const board = openBoard(job.path, { durable: false });
      return async () => (await board.next({ by: job.by }))?.text ?? null;
    }
    case 'sqlite': {
      const db = new Database(job.path);
      db.pragma('busy_timeout = 10000');
      db.pragma('synchronous = NORMAL');
      const claim = sqliteClaim(db);
      return () => claim(job.by);
    }
    case 'lockfile':
      return () => lockfileClaim(job.path, job.by, false);
    case 'floor':
      return () => floorClaim(job.path, job.by, false);
    case 'postgres': {
      // job.path is the board's URL; one connection per process, as a trigger holds it.
      const board = openBoard(job.path, { pool: 1 });
      return async () => (await board.next({ by: job.by }))?.text ?? null;
    }
  }
}

/** A run that says koffi must have taken its locks through koffi, and one that says fs-ext through fs-ext. */
function assertProvider(name: 'koffi' | 'fs-ext'): void {
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  if (!loaded.some((p) => p.includes(`/node_modules/${name}/`))) throw new Error(`bench worker: expected flock through ${name}`);
}

function send(msg: unknown): Promise<void> {
  return new Promise((resolve, reject) => process.send!(msg, undefined, {}, (err) => (err ? reject(err) : resolve())));
}

// The job comes in argv, not a message, so it cannot arrive before this module has loaded.
const job = JSON.parse(process.argv[2]!) as WorkerJob;
const claim = claimerFor(job);
process.once('message', async () => {
  const lat: number[] = [];
  const got: string[] = [];
  let busy = 0;
  const start = clock();
  let end = start;
  for (;;) {
    const t0 = clock();
    let text: string | null;
    try {
      const r = claim();
      text = r instanceof Promise ? await r : r;
    } catch (err) {
      // busy_timeout should absorb contention; count any BUSY that still escapes and try again.
      if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
        busy++;
        continue;
      }
      throw err;
    }
    const t1 = clock();
    if (text === null) break;
    lat.push(toUs(t1 - t0));
    got.push(text);
    end = t1;
  }
  if (job.kind.startsWith('mdclaim')) assertProvider(job.kind === 'mdclaim-koffi' ? 'koffi' : 'fs-ext');
  // The log the parent checks against the board: one claimed task per line.
  writeFileSync(job.log, got.map((t) => t + '\n').join(''));
  const report: WorkerReport = { by: job.by, claims: got.length, start: String(start), end: String(end), latUs: lat, busy };
  await send(report);
  process.disconnect();
});
void send('ready');
