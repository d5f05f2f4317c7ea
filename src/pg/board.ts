import { checkBy } from '../board/checks.js';
import { addRequest, claimRequest, doneRequest, failRequest, holderRequest, nextRequest, reapRequest, reopenRequest, retryRequest, type HolderRequest } from '../board/requests.js';
import { parkedIsConflict, parkedView, reapedOf } from '../board/park.js';
import { parseDuration, parseLease } from '../board/duration.js';
import type { ChangeSource, ClaimOptions, HistoryEvent, HistoryOptions, HolderOptions, NextOptions, ReapOptions, Reaped, RetryOptions, Survey, TaskBoard } from '../board/types.js';
import { withOwnLine, type TaskBlocker } from '../board/standing.js';
import { pathList, pathRequest } from '../board/path-options.js';
import type { CheckPathsOptions, HeldPath, LockPathsOptions, PathLocking, UnlockPathsOptions } from '../board/path-types.js';
import { MdclaimError, usage } from '../errors.js';
import { bytes } from '../format/bytes.js';
import { FAILED_SEP, type Task } from '../format/task.js';
import { addTask } from './add.js';
import { createBoard, findBoard } from './boards.js';
import { claimById, claimNext, claimNextAlone, PassOver } from './claim.js';
import { Db, type Conn } from './db.js';
import { holderWrite, type HolderVerb } from './finish.js';
import { historyOf } from './history.js';
import { historyRequest } from '../board/history.js';
import { ensureSchema, migrate, type Migrated } from './migrate.js';
import { PathRace } from './held.js';
import { checkPaths, listPaths, lockPaths, refuseRetaken, unlockPaths } from './paths.js';
import { parkAtBudget, reapStale } from './reap.js';
import { reopenTask } from './reopen.js';
import { resolveIn } from './resolve-id.js';
import { isPrefix } from '../board/resolve-id.js';
import { locksColumn, taskColumns, toTask, type TaskRow } from './rows.js';
import { exportDocument, importDocument } from './transfer.js';
import { requestToken, writtenWith } from './token.js';
import { parsePgUrl, type PgTarget } from './url.js';
import { WorkListener } from './wait.js';

export interface PgBoardOptions {
  /** The default lease of a new claim (default `30m`). */
  lease?: string | number;
  /** Most connections this board object opens at once (default 4; the CLI uses 1). */
  pool?: number;
  /** Give up connecting after this long (default `connect_timeout` in the URL, else `10s`). */
  connectTimeout?: string | number;
  /** Give up each wait for a row or advisory lock after this long (default `MDCLAIM_LOCK_TIMEOUT` or `10s`; LOCK_TIMEOUT). */
  lockTimeout?: string | number;
  /** Every commit waits for the WAL flush (`synchronous_commit=on`) even where the URL or the server turned that off (default: the server's setting). */
  durable?: boolean;
}

const listOf = (more = '') => `SELECT ${locksColumn('t')}${more}, ${taskColumns(
  't',
  't',
  // task_view.line for every row in one pass (the kept bases are the same sums): the breaks of the rows above and their lock lines.
  `1 + t.lead_breaks + coalesce(sum(t.lead_breaks + t.body_breaks + (SELECT count(*) FROM mdclaim.path_lock l WHERE l.task = t.uid))
    OVER (ORDER BY t.position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int`,
)} FROM mdclaim.task_view t WHERE t.board = $1 ORDER BY t.position`;
const LIST = listOf();
// With the view's own answer (migration 6): what next and claim act on.
const SURVEY = listOf(', t.blocker');

/**
 * A board in PostgreSQL: the same tasks, ids and rules as the file board,
 * decided by the database in one statement per change, on its clock alone.
 */
export class PgBoard implements TaskBoard, PathLocking {
  readonly kind = 'pg' as const;
  /** Every change is kept in its history, in the change's own transaction. */
  readonly keepsHistory = true;
  readonly location: string;
  /** The URL as given less its password: what a runner tells its commands (MDCLAIM_FILE), parameters and socket form kept. */
  readonly handOff: string;
  private readonly target: PgTarget;
  private readonly db: Db;
  private readonly leaseMs: number;
  private ready: Promise<void> | null = null;
  private boardId: number | null = null;
  private readonly listener: WorkListener;

  constructor(url: string, options: PgBoardOptions = {}) {
    this.target = parsePgUrl(url);
    this.location = `${this.target.display}?board=${this.target.board}`;
    this.handOff = this.target.handOff;
    this.leaseMs = parseLease(options.lease ?? '30m', 'lease');
    const pool = options.pool ?? 4;
    if (!Number.isInteger(pool) || pool < 1) throw usage(`pool must be a whole number ≥ 1, got ${String(pool)}`);
    const connectTimeoutMs = options.connectTimeout === undefined ? (this.target.connectTimeoutMs ?? 10_000) : parseDuration(options.connectTimeout, 'connectTimeout');
    const lockTimeoutMs = parseDuration(options.lockTimeout ?? process.env['MDCLAIM_LOCK_TIMEOUT'] ?? '10s', 'lockTimeout');
    this.db = new Db(this.target, { max: pool, connectTimeoutMs, lockTimeoutMs, durable: options.durable === true });
    this.listener = new WorkListener(this.db, () => this.board());
  }

  /** LISTEN/NOTIFY on the board's channel, and a read of its change mark behind it: a connection of its own, made on `start`. */
  async changes(): Promise<ChangeSource> {
    const { PgChanges } = await import('./changes.js');
    return new PgChanges(this.target);
  }

  async list(): Promise<Task[]> {
    const board = await this.board();
    return this.db.with(async (c) => (await c.query<TaskRow>(LIST, [board])).map(toTask));
  }

  /** Every task with the answer the SQL gives next and claim (task_view's blocker), at the database's clock. */
  async survey(): Promise<Survey> {
    const board = await this.board();
    const rows = await this.db.with((c) => c.query<TaskRow & { blocker: TaskBlocker | null }>(SURVEY, [board]));
    const tasks = rows.map(toTask);
    return { tasks, blockers: rows.map((r, i) => withOwnLine(tasks[i]!, r.blocker)) };
  }

  async next(options: NextOptions): Promise<Task | null> {
    const { by, leaseMs, tags, section: named, maxAttempts } = nextRequest(options, this.leaseMs);
    const board = await this.board();
    const section = named === undefined ? {} : { section: named };
    const max = maxAttempts === undefined ? {} : { maxAttempts };
    const a = { board, by, leaseMs, tags, ...section, ...max };
    // Without a budget, the claim is one statement on its own, unless its task declares paths.
    if (max.maxAttempts === undefined) {
      const alone = await this.alone(board, (c, token) => claimNextAlone(c, a, token));
      if (alone !== 'deferred') return alone;
    }
    // A budget parks the lapsed claims at it first, in the claim's transaction, so the claim takes the next task.
    // A task its own line keeps from being claimed rolls the claim back, and is passed over (told once).
    const passed: string[] = [];
    for (;;) {
      try {
        return await this.racing(() => this.db.with(async (c) => {
          if (max.maxAttempts !== undefined) await parkAtBudget(c, { board, maxAttempts: max.maxAttempts, via: 'next', tags, ...section });
          return claimNext(c, a, passed);
        }, true));
      } catch (err) {
        if (!(err instanceof PassOver)) throw err;
        passed.push(err.uid);
        options.onPassOver?.({ task: err.task, reason: err.reason });
      }
    }
  }

  async claim(id: string, options: ClaimOptions): Promise<Task> {
    const { by, leaseMs, maxAttempts } = claimRequest(id, options, this.leaseMs);
    const board = await this.board();
    const full = await this.resolve(board, id);
    const max = maxAttempts === undefined ? {} : { maxAttempts };
    const a = { board, id: full, by, leaseMs, ...max };
    // Without a budget, the claim is one statement on its own, unless its task declares paths.
    if (max.maxAttempts === undefined) {
      const alone = await this.alone(board, (c, token) => claimById(c, a, token));
      if (alone !== 'deferred') return alone;
    }
    return parkedIsConflict(await this.racing(() => this.db.with(async (c) => {
      const parked = max.maxAttempts === undefined ? [] : await parkAtBudget(c, { board, maxAttempts: max.maxAttempts, via: 'claim', id: full });
      // Parked, not taken: the board says so once the parking is written.
      if (parked[0]) return parkedView(parked[0]);
      // In a transaction, a task is never deferred.
      return (await claimById(c, a)) as Task;
    }, true)));
  }

  /** Lock paths for the task the caller holds (its live claim only); CONFLICT naming the holder when one is taken. */
  async lockPaths(id: string, options: LockPathsOptions): Promise<Task> {
    const { by, claimedAt } = holderRequest(id, options);
    const want = pathRequest(options, 'lockPaths');
    const board = await this.board();
    const full = await this.resolve(board, id);
    return this.db.with((c) => lockPaths(c, { board, id: full, by, ...(claimedAt === undefined ? {} : { claimedAt }) }, want), true);
  }

  /** Let go of the named locks of the caller's task, or of all of them; NOT_FOUND for a path it does not lock. */
  async unlockPaths(id: string, options: UnlockPathsOptions): Promise<Task> {
    const { by, claimedAt } = holderRequest(id, options);
    const paths = options.paths === undefined ? undefined : pathList(options.paths, 'paths');
    const board = await this.board();
    const full = await this.resolve(board, id);
    return this.db.with((c) => unlockPaths(c, { board, id: full, by, ...(claimedAt === undefined ? {} : { claimedAt }) }, paths), true);
  }

  /** Every path a live claim holds now, in board order. */
  async paths(): Promise<HeldPath[]> {
    const board = await this.board();
    return this.db.with((c) => listPaths(c, board));
  }

  /** May `by` touch these paths? Its own holds in the way, or CONFLICT naming another holder. */
  async checkPaths(options: CheckPathsOptions): Promise<HeldPath[]> {
    const by = checkBy(options?.by);
    const want = pathRequest(options, 'checkPaths');
    const board = await this.board();
    return this.db.with((c) => checkPaths(c, board, by, want));
  }

  /** A claim that lost a race for its paths rolled back: each retry sees the claim that won, so this ends. */
  private async racing<T>(claim: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await claim();
      } catch (err) {
        if (!(err instanceof PathRace)) throw err;
      }
    }
  }

  async heartbeat(id: string, options: HolderOptions): Promise<Task> {
    return this.holder('heartbeat', holderRequest(id, options));
  }

  async done(id: string, options: HolderOptions & { commit?: string }): Promise<Task> {
    const r = doneRequest(id, options);
    return this.holder('done', r, r.commit);
  }

  async fail(id: string, options: HolderOptions & { reason?: string }): Promise<Task> {
    const r = failRequest(id, options);
    return this.holder('fail', r, r.reason, Buffer.from(r.reason === undefined ? '' : bytes(`${FAILED_SEP} ${r.reason}`), 'latin1'));
  }

  async release(id: string, options: HolderOptions): Promise<Task> {
    return this.holder('release', holderRequest(id, options));
  }

  /** Give the task back for a retry: open, its attempt counted, and claimable by no one before now + delay (the database's clock, rounded up to the second). */
  async retry(id: string, options: RetryOptions): Promise<Task> {
    const { delayMs, ...r } = retryRequest(id, options);
    return this.holder('retry', r, String(delayMs));
  }

  /** Put a done or failed task back to open, its commit or reason dropped; logged as `released` via `reopen`. */
  async reopen(id: string, options: { by?: string } = {}): Promise<Task> {
    const r = reopenRequest(id, options);
    const by = r.by === undefined ? {} : { by: r.by };
    const board = await this.board();
    const full = await this.resolve(board, id);
    return this.db.with((c) => reopenTask(c, { board, id: full, ...by }), true);
  }

  async reap(options: ReapOptions = {}): Promise<Reaped> {
    const r = reapRequest(options);
    const board = await this.board();
    // A transaction, as every write is: a connection lost while it commits can be asked about (see Db.with).
    const reaped = await this.db.with((c) => reapStale(c, { board, ...r }), true);
    return reapedOf(reaped, r.maxAttempts);
  }

  async add(text: string, options: { section?: string } = {}): Promise<Task> {
    const r = addRequest(text, options);
    await this.schema();
    return this.db.with(async (c) => addTask(c, await createBoard(c, this.target.board), r.text, r.section), true);
  }

  async history(options?: string | HistoryOptions): Promise<HistoryEvent[]> {
    const r = historyRequest(options);
    const board = await this.board();
    const id = r.id === undefined ? {} : { id: await this.resolve(board, r.id) };
    return this.db.with((c) => historyOf(c, board, { ...r, ...id }));
  }

  waitForWork(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
    return this.listener.wait(signal, timeoutMs);
  }

  /** Load a markdown document as this board (refused when the board has tasks, unless `replace`). */
  async importDocument(
    doc: Buffer, options: { replace?: boolean; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ tasks: number; replaced: number }> {
    await this.schema();
    const out = await this.db.with((c) => importDocument(c, this.target.board, doc, options.replace ?? false, options.onProgress), true);
    this.boardId = out.board;
    return { tasks: out.tasks, replaced: out.replaced };
  }

  /** The board in the file format, byte for byte what was imported plus the changes since. */
  async exportDocument(): Promise<Buffer> {
    const board = await this.board();
    return this.db.with((c) => exportDocument(c, board), true);
  }

  /** Create or upgrade the schema; every board does this on first use. */
  async migrate(): Promise<Migrated> {
    const out = await migrate(this.db);
    this.ready = Promise.resolve();
    return out;
  }

  async close(): Promise<void> {
    await this.listener.close();
    await this.db.end();
  }

  private async holder(verb: HolderVerb, r: HolderRequest, value?: string, suffix?: Buffer): Promise<Task> {
    const { by, claimedAt } = r;
    const board = await this.board();
    const id = await this.resolve(board, r.id);
    const fence = claimedAt === undefined ? {} : { claimedAt };
    const args = { board, id, by, ...fence, ...(value === undefined ? {} : { value }), ...(suffix ? { suffix } : {}) };
    // A heartbeat is a transaction: it may renew a lapsed claim, whose paths it checks under the board's path lock.
    if (verb === 'heartbeat') {
      return this.db.with(async (c: Conn) => {
        await refuseRetaken(c, { board, id, by, ...fence });
        return holderWrite(c, verb, args);
      }, true);
    }
    // The others are one statement on its own (one round trip).
    return this.alone(board, (c, token) => holderWrite(c, verb, args, token));
  }

  /** One writing statement on its own, in autocommit: its token marks the row it writes, the answer if the connection is lost under it. */
  private alone<T>(board: number, write: (c: Conn, token: string) => Promise<T | Task>): Promise<T | Task> {
    const token = requestToken();
    return this.db.with((c) => write(c, token), { made: (c) => writtenWith(c, board, token) });
  }

  /** A unique start of an id, as the whole id (one query, only for a prefix). */
  private async resolve(board: number, id: string): Promise<string> {
    return isPrefix(id) ? this.db.with((c) => resolveIn(c, board, id)) : id;
  }

  private schema(): Promise<void> {
    this.ready ??= ensureSchema(this.db).catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  /** The board's id, looked up once: a board that does not exist is an error, as a missing file is. */
  private async board(): Promise<number> {
    if (this.boardId !== null) return this.boardId;
    await this.schema();
    const id = await this.db.with((c) => findBoard(c, this.target.board));
    if (id === null) {
      throw new MdclaimError('IO', `${this.location}: no such board (create it with mdclaim import FILE --to URL, or mdclaim add)`);
    }
    this.boardId = id;
    return id;
  }
}
