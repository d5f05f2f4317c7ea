import { EventEmitter } from 'node:events';
import { Logger, run, type WorkerEvents, type WorkerPool, type WorkerUtils } from 'graphile-worker';
import { clock } from './util.js';

// graphile-worker beside the PostgreSQL board: its own worker (run(), concurrency 1 per process), a no-op task.

/** The flag that holds the queued jobs back until the workers are told to go: their start-up stays out of the timing. */
const HELD = 'bench-held';

/** graphile-worker says nothing: the bench's progress is its own. */
export const quiet = new Logger(() => () => {});

/** Queue `n` no-op jobs `task 1` … `task n`, held back, after taking away what the last round left (untimed). */
export async function fillGraphile(utils: WorkerUtils, n: number): Promise<void> {
  const left = await utils.withPgClient((c) => c.query<{ id: string }>('SELECT id FROM graphile_worker.jobs'));
  if (left.rows.length > 0) await utils.completeJobs(left.rows.map((r) => r.id));
  await utils.addJobs(Array.from({ length: n }, (_, i) => ({ identifier: 'noop', payload: { n: i + 1 }, flags: [HELD] })));
}

/** Jobs still queued: a drain that took `k` of `n` leaves at most `n - k`. */
export async function graphileLeft(utils: WorkerUtils): Promise<number> {
  return Number((await utils.withPgClient((c) => c.query<{ n: string }>('SELECT count(*) AS n FROM graphile_worker.jobs'))).rows[0]!.n);
}

export interface Drained {
  got: string[];
  /** Monotonic ns at which each job's task began. */
  stamps: bigint[];
  start: bigint;
}

/**
 * Start a worker (connected, listening, and having found nothing it may take)
 * and return what starts the drain: the hold is lifted, the worker nudged, and
 * each job's task stamps its start. It ends at the first empty fetch after go,
 * or once `limit` jobs ran.
 */
export async function graphileWorker(url: string, limit?: number): Promise<{ go: () => Promise<Drained> }> {
  let open = false;
  let fetchedAfterGo = false;
  let pool: WorkerPool | null = null;
  const got: string[] = [];
  const stamps: bigint[] = [];
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let started!: () => void;
  const idle = new Promise<void>((resolve) => (started = resolve));
  const events = new EventEmitter() as WorkerEvents;
  events.on('pool:create', ({ workerPool }) => (pool = workerPool));
  events.on('worker:getJob:start', () => (fetchedAfterGo = open));
  events.on('worker:getJob:empty', () => {
    if (!open) started();
    else if (fetchedAfterGo) finish();
    // That fetch began before go and still skipped the held jobs: fetch again.
    else setImmediate(() => pool!.nudge(1));
  });
  const runner = await run({
    connectionString: url,
    concurrency: 1,
    // One connection for its LISTEN, one for fetching and completing jobs.
    maxPoolSize: 2,
    pollInterval: 60_000,
    noHandleSignals: true,
    logger: quiet,
    events,
    forbiddenFlags: () => (open ? null : [HELD]),
    taskList: {
      noop: async (payload) => {
        const t = clock();
        if (limit !== undefined && got.length >= limit) return;
        stamps.push(t);
        got.push(`task ${(payload as { n: number }).n}`);
        if (got.length === limit) finish();
      },
    },
  });
  await idle;
  return {
    go: async () => {
      const start = clock();
      open = true;
      pool!.nudge(1);
      await finished;
      await runner.stop();
      return { got, stamps, start };
    },
  };
}
