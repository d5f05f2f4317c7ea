import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { openBoard } from 'mdclaim';
import { floorClaim, lockfileClaim, sqliteClaim } from './claimers.js';
import { skipLockedClaimer } from './skip-locked.js';
import { clock, toUs, WARM_CLAIMS } from './util.js';
import { PHASES, splitClaims, type ClaimSplit } from './fs-split.js';

/** The library's count of its lock waits (dir-lock.ts), from the same module instance as the board's: dist/, as 'mdclaim' resolves. */
type LockWaits = { waits: number; blocks: number; kernelWaits: number; polls: number; tries: number };
const { lockWaits } = (await import(new URL('../../dist/storage/dir-lock.js', import.meta.url).href)) as { lockWaits: LockWaits };

/** What the parent sends a contended-case worker. */
export interface WorkerJob {
  /**
   * mdclaim-koffi: mdclaim in a process where fs-ext cannot load (bench/no-fs-ext.cjs), so its flock comes through koffi.
   * mdclaim-helper: mdclaim whose contended waits go through its perl helper (MDCLAIM_LOCK_WAIT=helper), as on machines
   * where a pool thread cannot wait (see pool-wait.ts), and as every wait went before it could; mdclaim-pool: every
   * contended wait on a pool thread (MDCLAIM_LOCK_WAIT=pool), without the brief block of its own thread first.
   */
  kind: 'mdclaim' | 'mdclaim-koffi' | 'mdclaim-helper' | 'mdclaim-pool' | 'sqlite' | 'lockfile' | 'floor' | 'postgres' | 'skip-locked' | 'graphile-worker';
  /** The board's file or URL; for skip-locked and graphile-worker, the database's URL. */
  path: string;
  by: string;
  log: string;
  /** Stop after this many claims (default: when the board runs dry). */
  limit?: number;
  /**
   * Open the connection and prepare the claim before the round, as graphile-worker's start-up is
   * kept out of it too: what is timed is claims, not a process's first connection (postgres and
   * skip-locked only).
   */
  warm?: boolean;
  /** Split each claim of a file claimer by phase (see fs-split.ts): a run of its own, as the split costs a little. */
  split?: boolean;
  /**
   * Before it says it is ready, the worker claims this many tasks from another board (`warmBoard`:
   * a URL for postgres, a file of its own for the file claimers), so that the round's claims run
   * code V8 has already compiled: what a long-lived claimer pays per claim, without a fresh
   * process's start.
   */
  warmClaims?: number;
  warmBoard?: string;
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
  /**
   * This process's CPU over its drain (process.cpuUsage, µs: its helper threads too, not its
   * children), and over its first WARM_CLAIMS claims: what a claim costs, and how much of it a
   * fresh process pays once.
   */
  cpuUs: { user: number; system: number };
  firstCpuUs: { user: number; system: number } | null;
  /** With `split`: the mean µs of each phase over the claims past the first WARM_CLAIMS. */
  split?: ClaimSplit;
  /**
   * With `split`: each claim's time under the lock, as µs of the clock every process shares (first
   * touch of the board under the lock, end of its last call there), for the hand-off between holders.
   */
  held?: Array<[number, number]>;
  /** mdclaim only: how its waits for the lock went over the drain (see lockWaits in dir-lock.ts). */
  lockWaits?: LockWaits;
}

/** What a worker holds open past its drain (a connection), closed before it leaves. */
const closers: Array<() => Promise<void>> = [];
/** What a warm worker does before it says it is ready. */
const warmUps: Array<() => Promise<void>> = [];

/** A tag no bench board carries: a next asking for it runs the claim statement (so it is prepared) and claims nothing. */
const NO_SUCH_TAG = 'bench-warm-up';

function claimerFor(job: WorkerJob): () => Promise<string | null> | string | null {
  switch (job.kind) {
    case 'mdclaim':
    case 'mdclaim-koffi':
    case 'mdclaim-helper':
    case 'mdclaim-pool': {
      const board = openBoard(job.path, { durable: false });
      if (job.warmBoard !== undefined && job.warmClaims !== undefined) {
        const { warmBoard, warmClaims } = job;
        warmUps.push(async () => {
          // A board of its own (lock, helper and all are its directory's): this board's lock is first taken in the round.
          const other = openBoard(warmBoard, { durable: false });
          for (let i = 0; i < warmClaims; i++) if ((await other.next({ by: job.by })) === null) throw new Error('bench worker: the warm-up board ran dry');
          await other.close();
        });
      }
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
      if (job.warmBoard !== undefined && job.warmClaims !== undefined) {
        const { warmBoard, warmClaims } = job;
        warmUps.push(async () => {
          for (let i = 0; i < warmClaims; i++) if (floorClaim(warmBoard, job.by, false) === null) throw new Error('bench worker: the warm-up board ran dry');
        });
      }
      return () => floorClaim(job.path, job.by, false);
    case 'postgres': {
      // job.path is the board's URL; one connection per process, as a trigger holds it.
      const board = openBoard(job.path, { pool: 1 });
      if (job.warm) {
        warmUps.push(async () => {
          if ((await board.next({ by: job.by, tags: [NO_SUCH_TAG] })) !== null) throw new Error('bench worker: the warm-up claimed a task');
        });
      }
      if (job.warmBoard !== undefined && job.warmClaims !== undefined) {
        const { warmBoard, warmClaims } = job;
        warmUps.push(async () => {
          const other = openBoard(warmBoard, { pool: 1 });
          for (let i = 0; i < warmClaims; i++) if ((await other.next({ by: job.by })) === null) throw new Error('bench worker: the warm-up board ran dry');
          await other.close();
        });
      }
      return async () => (await board.next({ by: job.by }))?.text ?? null;
    }
    case 'skip-locked': {
      const c = skipLockedClaimer(job.path);
      closers.push(c.close);
      if (job.warm) warmUps.push(c.connect);
      return () => c.claim(job.by);
    }
    case 'graphile-worker':
      throw new Error('bench worker: graphile-worker runs its own loop');
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

/** The phases of this process's claims, when the job asks for them (set once the job is read). */
let splitter: ReturnType<typeof splitClaims> | null = null;
const phases: ClaimSplit = { lock: 0, read: 0, decide: 0, write: 0, verify: 0, release: 0 };
let splitClaimsSeen = 0;
const held: Array<[number, number]> = [];

interface Drained {
  got: string[];
  latUs: number[];
  start: bigint;
  end: bigint;
  busy: number;
  firstCpu: NodeJS.CpuUsage | null;
}

/** Claim until the board runs dry (or `limit` claims), timing each claim. */
async function pull(claim: ReturnType<typeof claimerFor>, limit: number | undefined): Promise<Drained> {
  const latUs: number[] = [];
  const got: string[] = [];
  let busy = 0;
  let firstCpu: NodeJS.CpuUsage | null = null;
  const cpu0 = process.cpuUsage();
  const start = clock();
  let end = start;
  while (limit === undefined || got.length < limit) {
    const t0 = clock();
    let text: string | null;
    splitter?.begin();
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
    const split = splitter?.end();
    if (text === null) break;
    if (split && got.length >= WARM_CLAIMS) {
      for (const k of PHASES) phases[k] += split[k];
      splitClaimsSeen++;
    }
    if (split?.held) held.push([toUs(split.held.acquired), toUs(split.held.released)]);
    latUs.push(toUs(t1 - t0));
    got.push(text);
    end = t1;
    if (got.length === WARM_CLAIMS) firstCpu = process.cpuUsage(cpu0);
  }
  return { got, latUs, start, end, busy, firstCpu };
}

/** graphile-worker hands jobs to its task rather than being asked: a claim's latency is the time since the last task began (the first: since go). */
async function pushed(url: string, limit: number | undefined): Promise<() => Promise<Drained>> {
  const { graphileWorker } = await import('./graphile.js');
  const worker = await graphileWorker(url, limit);
  return async () => {
    const d = await worker.go();
    const latUs = d.stamps.map((t, i) => toUs(t - (i === 0 ? d.start : d.stamps[i - 1]!)));
    return { got: d.got, latUs, start: d.start, end: d.stamps.at(-1) ?? d.start, busy: 0, firstCpu: null };
  };
}

// The job comes in argv, not a message, so it cannot arrive before this module has loaded.
const job = JSON.parse(process.argv[2]!) as WorkerJob;
if (job.split) splitter = splitClaims(job.path);
const drain = job.kind === 'graphile-worker' ? await pushed(job.path, job.limit) : ((claim) => () => pull(claim, job.limit))(claimerFor(job));
process.once('message', async () => {
  const waits0 = { ...lockWaits };
  const cpu0 = process.cpuUsage();
  const d = await drain();
  const cpu = process.cpuUsage(cpu0);
  if (job.kind.startsWith('mdclaim')) assertProvider(job.kind === 'mdclaim-koffi' ? 'koffi' : 'fs-ext');
  // The log the parent checks against the board: one claimed task per line.
  writeFileSync(job.log, d.got.map((t) => t + '\n').join(''));
  const report: WorkerReport = {
    by: job.by, claims: d.got.length, start: String(d.start), end: String(d.end), latUs: d.latUs, busy: d.busy,
    cpuUs: { user: cpu.user, system: cpu.system }, firstCpuUs: d.firstCpu && { user: d.firstCpu.user, system: d.firstCpu.system },
    ...(splitter && splitClaimsSeen > 0 ? { split: Object.fromEntries(PHASES.map((k) => [k, phases[k] / splitClaimsSeen])) as unknown as ClaimSplit } : {}),
    ...(splitter ? { held } : {}),
    ...(job.kind.startsWith('mdclaim') ? { lockWaits: { waits: lockWaits.waits - waits0.waits, blocks: lockWaits.blocks - waits0.blocks, kernelWaits: lockWaits.kernelWaits - waits0.kernelWaits, polls: lockWaits.polls - waits0.polls, tries: lockWaits.tries - waits0.tries } } : {}),
  };
  await send(report);
  // Connections stay open until the parent has read what it measures of them (their server processes' CPU).
  await new Promise((resolve) => process.once('message', resolve));
  for (const close of closers) await close();
  process.disconnect();
});
for (const warm of warmUps) await warm();
void send('ready');
