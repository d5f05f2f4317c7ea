import type { Task } from '../format/task.js';
import type { BoardKind } from './capabilities.js';
import type { PathLocking } from './path-types.js';
import type { TaskBlocker } from './standing.js';

// The one interface every board implements (the file board and the PostgreSQL
// board), so the CLI, triggers and the runner never ask which one they hold.

export interface ClaimOptions {
  by: string;
  /** The new claim's own lease (default: the board's, `30m`). */
  lease?: string | number;
  /**
   * The claimer's attempts budget: a lapsed claim whose task has had this
   * many attempts is parked (failed, `abandoned after N attempts; last held
   * by <by>`) instead of taken over, as `reap({ maxAttempts })` would; the
   * claim itself is counted on its line. `claim` of such a task parks it and
   * throws CONFLICT; `next` parks it and goes on to the next task.
   */
  maxAttempts?: number;
}

export interface NextOptions extends ClaimOptions {
  tags?: readonly string[];
  section?: string;
  /**
   * Told of each task `next` passed over because its own line keeps it from
   * being claimed (a declared path that does not normalise, the failure
   * reason's separator in its text): the task, and why, as `claim` of it
   * would refuse it (a usage error naming the line).
   */
  onPassOver?: (passed: PassedOver) => void;
}

/** A task `next` passed over: it is claimable but for what its own line says. */
export interface PassedOver {
  task: Task;
  reason: string;
}

/**
 * Who makes a holder write. With `claimedAt` (as the last next/claim/heartbeat
 * returned it) the write applies only to that very claim: CONFLICT otherwise,
 * even when `by` is the same.
 */
export interface HolderOptions {
  by: string;
  claimedAt?: string;
}

/** What reap did: every claim it reaped, as it was, in board order; and of those, which it reopened and which it parked (at maxAttempts). */
export type Reaped = Task[] & { readonly reopened: Task[]; readonly parked: Task[] };

export interface ReapOptions {
  /** Also reopen claims older than this, whatever their own lease. */
  ttl?: string | number;
  dryRun?: boolean;
  /** Also reopen ADW claims with no timestamp (`[🟡, id]`). */
  includeUntimed?: boolean;
  /** Park, instead of reopening, a claim whose task has had this many attempts: failed, with the reason `abandoned after N attempts; last held by <by>`. */
  maxAttempts?: number;
}

/** A holder's give-back for a retry: no claim takes the task until `delay` has passed. */
export interface RetryOptions extends HolderOptions {
  /** How long the task waits, from now (rounded up to the second written on its line). */
  delay: string | number;
}

/** One entry of a board's append-only history: the same events and fields on both kinds of board. */
export interface HistoryEvent {
  /** Increases with every event on the board (a file board: the event's place in its journal as read). */
  seq: number;
  /** RFC 3339: a PostgreSQL board's clock, with microseconds; a file board's writer's, with milliseconds. */
  at: string;
  /**
   * A reopen is logged as `released`, via `reopen`, `from` whoever finished the task.
   * `locked` and `unlocked`: path locks taken and let go by their holder. Only a file board records `removed` (a task an edit deleted).
   */
  event: 'added' | 'imported' | 'claimed' | 'renewed' | 'taken over' | 'done' | 'failed' | 'released' | 'reaped' | 'retried' | 'parked'
    | 'locked' | 'unlocked' | 'removed';
  /** The task's tracker key, or the hash of its text when it has none. */
  id: string;
  /** Who made the change (absent for a reap or an import). */
  by?: string;
  /** Who held the task before a takeover or a reap. */
  from?: string;
  /** The claim the event made or renewed. */
  claimedAt?: string;
  lease?: string;
  commit?: string;
  reason?: string;
  /** The attempts the task's line counts after the event (its `// Attempts: N` field), where it counts them. */
  attempts?: number;
  /** locked, unlocked: the paths, `write:` or `read:` before each. */
  paths?: string[];
  /** The operation that made the change: `next`, `claim`, `heartbeat`, `done`, `fail`, `release`, `retry`, `reopen`, `reap`, `add`, `import`, `lock`, `unlock`, `edit`. */
  via: string;
  /** The task's text, so a history still reads after the board was replaced. */
  text: string;
}

/** Which events `history` returns: of one task (its id, key or hash), since an instant, by one name; all when none is given. */
export interface HistoryOptions {
  id?: string;
  /** Events at or after this instant (epoch milliseconds). */
  since?: number;
  /** Events made by this name (their `by`). */
  by?: string;
}

/** A board's tasks and, for each, null when it may be claimed now, else what stands in the way. */
export interface Survey {
  tasks: Task[];
  blockers: (TaskBlocker | null)[];
}

/**
 * Path locks are part of every board (PathLocking), and so is a history:
 * whether a board keeps one is declared (`keepsHistory`). What only one kind
 * has (the file board's hold, snapshot and edit; the PostgreSQL board's
 * import, export and migrate) is on that board's class, found by `kind`.
 */
export interface TaskBoard extends PathLocking {
  /** Which kind of board: `file` or `pg` (see capabilities.ts). */
  readonly kind: BoardKind;
  /** The path, or the URL without its password. */
  readonly location: string;
  /** Where another process finds this board, without a password: the path, or the URL less its password (parameters and socket form kept). */
  readonly handOff: string;
  /**
   * Where this board's changes come from, for a view that reads it again on
   * each: its directory's notifications (file), or LISTEN/NOTIFY (PostgreSQL),
   * each with a poll behind it. Nothing starts until `start`.
   */
  changes(): Promise<ChangeSource>;
  /** Every task in board order. */
  list(): Promise<Task[]>;
  /**
   * Every task in board order, each with the board's own answer to "may it be
   * claimed now, or what stands in the way": the answer `next` and `claim` act
   * on (the file board's rule in TypeScript, the PostgreSQL board's in SQL), so
   * what a view shows and what a claim does cannot disagree.
   */
  survey(): Promise<Survey>;
  /** Claim the first claimable task in board order that has every tag and is in the section; null when none is. */
  next(options: NextOptions): Promise<Task | null>;
  claim(id: string, options: ClaimOptions): Promise<Task>;
  heartbeat(id: string, options: HolderOptions): Promise<Task>;
  done(id: string, options: HolderOptions & { commit?: string }): Promise<Task>;
  fail(id: string, options: HolderOptions & { reason?: string }): Promise<Task>;
  /** Give the task back unworked: open again, and its claim counts no attempt. */
  release(id: string, options: HolderOptions): Promise<Task>;
  /** Give the task back to be tried again: open, its attempt counted, and claimable by no one until `delay` has passed. */
  retry(id: string, options: RetryOptions): Promise<Task>;
  /**
   * Put a done or failed task back to open, its commit or reason dropped.
   * CONFLICT for a claim (its holder releases it) or a task not finished.
   * `by` is who reopens it: kept in the board's history.
   */
  reopen(id: string, options?: { by?: string }): Promise<Task>;
  /** Reopen lapsed claims (or park those at `maxAttempts`); returns them as they were, saying which it reopened and which it parked. */
  reap(options?: ReapOptions): Promise<Reaped>;
  add(text: string, options?: { section?: string }): Promise<Task>;
  /**
   * Does the board keep a history of its changes for `history` to read:
   * always on a PostgreSQL board; on a file board, while it has a journal
   * beside it (docs/FORMAT.md) and journalling is not turned off.
   */
  readonly keepsHistory: boolean;
  /**
   * The board's events, oldest first: of one task when `id` is given (a string, or `options.id`).
   * A file board keeps them in its journal beside it (docs/FORMAT.md); one that keeps none
   * (`keepsHistory` false) answers [], never refuses.
   */
  history(id?: string | HistoryOptions): Promise<HistoryEvent[]>;
  /**
   * Resolve when a task may have become claimable, or after `timeoutMs`,
   * or when `signal` aborts: a runner's wait between two `next` calls.
   */
  waitForWork(signal: AbortSignal | undefined, timeoutMs: number): Promise<void>;
  /** Let go of connections (PostgreSQL: the board is unusable after) or of the lock's directory descriptor (file: the next operation opens a new one). */
  close(): Promise<void>;
}

/** Tells a watcher the board may have changed: it then reads it again. */
export interface ChangeSource {
  start(poke: () => void): void;
  close(): Promise<void>;
}
