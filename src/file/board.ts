import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { usage } from '../errors.js';
import { toByteString } from '../format/bytes.js';
import type { ByteString } from '../format/bytes.js';
import type { Task } from '../format/task.js';
import { refuseFileBoardOn } from '../platform/windows.js';
import { FileStore, type Change, type WriteMode } from '../storage/file-store.js';
import { journalOf } from '../storage/journal.js';
import type { LockKind } from '../storage/lock.js';
import { add } from '../board/add.js';
import { applyEdits, checkReading } from '../board/check-reading.js';
import { claimById, claimNext } from './claim.js';
import { parseDuration, parseLease } from '../board/duration.js';
import { applyEdit, type EditResult } from './edit.js';
import { done, fail, heartbeat, release, retry } from './finish.js';
import { resultOf, type Plan } from '../board/plan.js';
import { reap } from './reap.js';
import { reopen } from './reopen.js';
import { idIn } from '../board/resolve-id.js';
import { listTasks } from '../board/walk.js';
import { answers } from '../board/standing.js';
import { cutoff } from '../board/claimable.js';
import { warmUp } from './warm-up.js';
import { checkBy } from '../board/checks.js';
import { addRequest, claimRequest, doneRequest, failRequest, holderRequest, nextRequest, reapRequest, reopenRequest, retryRequest, type HolderRequest } from '../board/requests.js';
import { parkedIsConflict, reapedOf } from '../board/park.js';
import { formatClaimedAt } from '../format/marker.js';
import type { ChangeSource, ClaimOptions, HistoryEvent, HistoryOptions, HolderOptions, NextOptions, PassedOver, ReapOptions, Reaped, RetryOptions, Survey, TaskBoard } from '../board/types.js';

export type { HolderOptions, NextOptions } from '../board/types.js';
import { checkPaths, listPaths } from './list-paths.js';
import { lockPaths, unlockPaths } from './path-locks.js';
import { pathList, pathRequest } from '../board/path-options.js';
import type { CheckPathsOptions, HeldPath, LockPathsOptions, PathLocking, UnlockPathsOptions } from '../board/path-types.js';
import { after } from '../storage/deadline.js';
import { editJournal, planJournal, type Via } from '../board/history-events.js';
import { historyRequest, journalEvents } from '../board/history.js';

export interface BoardOptions {
  /**
   * The lease claims made through this board get (default `30m`): written on
   * the claim's line when it is not 30m. Whether someone else's claim has
   * lapsed is decided by that claim's own lease, never by this.
   */
  lease?: string | number;
  /** `auto` writes one line in place when that is crash-atomic, else replaces the file; `replace` always replaces (default `MDCLAIM_WRITE` or `auto`). */
  write?: WriteMode;
  /** fdatasync the file (and the directory after a replace) before returning (default false). */
  durable?: boolean;
  /** Which lock to take: `flock` on the board's directory, or `mkdir` (old name `proper-lockfile`) where neither fs-ext nor koffi can load; every claimer of a board must take the same one (default `MDCLAIM_LOCK` or `flock`). */
  lock?: LockKind | 'proper-lockfile';
  /** Give up waiting for the lock after this long (default `10s`). */
  lockTimeout?: string | number;
  /** Allow a board on NFS/SMB, where locks do not exclude other hosts (default `MDCLAIM_ALLOW_NFS=1` or false). */
  allowNetworkFs?: boolean;
  /** The clock, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /**
   * Append each change to the board's journal, `<board>.history.jsonl`, when
   * that file exists (default true; `MDCLAIM_HISTORY=off` turns it off): see
   * docs/FORMAT.md. A journal that cannot be written fails no change.
   */
  history?: boolean;
  /** Told why a change's journal line could not be written (default: one `warning:` line on stderr). */
  onWarning?: (message: string) => void;
}

export const DEFAULT_LEASE = '30m';

/** A board in a markdown file on this host. */
export class Board implements TaskBoard, PathLocking {
  private readonly store: FileStore;
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly journalling: boolean;

  constructor(readonly path: string, options: BoardOptions = {}) {
    if (typeof path !== 'string' || path === '') throw usage('openBoard: path must be a non-empty string');
    refuseFileBoardOn(process.platform, path);
    const write = options.write ?? (process.env['MDCLAIM_WRITE'] as WriteMode | undefined) ?? 'auto';
    if (write !== 'auto' && write !== 'replace') throw usage(`write must be "auto" or "replace", got "${String(write)}"`);
    this.leaseMs = parseLease(options.lease ?? DEFAULT_LEASE, 'lease');
    this.now = options.now ?? Date.now;
    if (options.lock !== undefined && !['flock', 'mkdir', 'proper-lockfile', 'none'].includes(options.lock)) {
      throw usage(`lock must be "flock" or "mkdir", got "${String(options.lock)}"`);
    }
    this.store = new FileStore(path, {
      write,
      durable: options.durable ?? false,
      ...(options.lock === undefined ? {} : { lock: options.lock }),
      lockTimeoutMs: parseDuration(options.lockTimeout ?? process.env['MDCLAIM_LOCK_TIMEOUT'] ?? '10s', 'lockTimeout'),
      allowNetworkFs: options.allowNetworkFs ?? process.env['MDCLAIM_ALLOW_NFS'] === '1',
      journal: (this.journalling = options.history ?? process.env['MDCLAIM_HISTORY'] !== 'off'),
      ...(options.onWarning === undefined ? {} : { warn: options.onWarning }),
    });
  }

  readonly kind = 'file' as const;

  get location(): string {
    return this.path;
  }

  /**
   * Does it keep a history: while its journal, `<board>.history.jsonl` beside
   * the file a symlinked board leads to, exists and journalling is not off
   * (see BoardOptions.history). `history` reads the journal, [] without one.
   */
  get keepsHistory(): boolean {
    return this.journalling && existsSync(this.journal);
  }

  /** Where the board's journal is, or would be (docs/FORMAT.md): beside the file a symlinked board leads to, as the store writes it. */
  get journal(): string {
    let file = this.path;
    try {
      if (lstatSync(file).isSymbolicLink()) file = realpathSync(file);
    } catch {
      // no board there: its reading says so
    }
    return journalOf(file);
  }

  /** The path: a file board has no secret to leave out. */
  get handOff(): string {
    return this.path;
  }

  /** The board's directory's notifications, and a poll behind them. */
  async changes(): Promise<ChangeSource> {
    const { FileChanges } = await import('./changes.js');
    return new FileChanges(this.path);
  }

  /** Which lock this board takes: `flock`, or `mkdir` when chosen. Throws IO when flock is wanted and neither fs-ext nor koffi loads. */
  get lockKind(): LockKind {
    return this.store.lockKind;
  }

  /**
   * Hold the board's lock until the returned function is called: exclusive
   * (every operation on the board waits), or `shared` (reads go on, writes
   * wait). For tools that read or change the file themselves; this
   * process's own operations on the board wait for it too.
   */
  async hold(options: { shared?: boolean; timeout?: string | number } = {}): Promise<() => void> {
    const timeoutMs = options.timeout === undefined ? undefined : parseDuration(options.timeout, 'timeout');
    return this.store.hold({ exclusive: !options.shared, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  }

  /** Every task in file order. */
  async list(): Promise<Task[]> {
    return this.store.read(listTasks);
  }

  /** Every task with the one claimable rule's answer (answers), decided on the bytes read, at this board's clock. */
  async survey(): Promise<Survey> {
    const tasks = await this.list();
    return { tasks, blockers: answers(tasks, cutoff(this.now())) };
  }

  /** Claim the first claimable task (in file order) that has every tag and is in the section; null when none is. */
  async next(options: NextOptions): Promise<Task | null> {
    const { by, leaseMs, tags, section, maxAttempts } = nextRequest(options, this.leaseMs);
    const filter = { tags, ...(section === undefined ? {} : { section }) };
    const max = maxAttempts === undefined ? {} : { maxAttempts };
    const passed: PassedOver[] = [];
    const task = await this.update('next', (src) => claimNext(src, filter, { by, leaseMs, now: this.now(), ...max }, (passed.length = 0, passed)));
    for (const p of passed) options.onPassOver?.(p);
    return task;
  }

  /**
   * Claim one task by id: the first claimable line with that id (exact
   * duplicates share one). Throws CONFLICT (with `holder`) when a live claim
   * holds it, the caller's own included (heartbeat renews), or it is finished or
   * blocked; NOT_FOUND when no task has the id; USAGE when the id is a tracker
   * key on several tasks (the message lists their ids).
   */
  async claim(id: string, options: ClaimOptions): Promise<Task> {
    const { by, leaseMs, maxAttempts } = claimRequest(id, options, this.leaseMs);
    const max = maxAttempts === undefined ? {} : { maxAttempts };
    return parkedIsConflict(await this.update('claim', (src) => claimById(src, idIn(src, id), { by, leaseMs, now: this.now(), ...max })));
  }

  /** Renew the holder's claim timestamp; the claim keeps its own lease. */
  async heartbeat(id: string, options: HolderOptions): Promise<Task> {
    const who = holder(holderRequest(id, options));
    return this.update('heartbeat', (src) => heartbeat(src, idIn(src, id), who, this.now()));
  }

  async done(id: string, options: HolderOptions & { commit?: string }): Promise<Task> {
    const r = doneRequest(id, options);
    return this.update('done', (src) => done(src, idIn(src, id), holder(r), r.commit));
  }

  async fail(id: string, options: HolderOptions & { reason?: string }): Promise<Task> {
    const r = failRequest(id, options);
    return this.update('fail', (src) => fail(src, idIn(src, id), holder(r), r.reason));
  }

  /** Give the task back unworked (`[ ]`): its claim counts no attempt, so claim + release leaves the line as it was. */
  async release(id: string, options: HolderOptions): Promise<Task> {
    const who = holder(holderRequest(id, options));
    return this.update('release', (src) => release(src, idIn(src, id), who));
  }

  /** Give the task back for a retry: `[ ]`, its attempt counted, and `not before` now + delay (to the second, rounded up) on its line. */
  async retry(id: string, options: RetryOptions): Promise<Task> {
    const { delayMs, ...r } = retryRequest(id, options);
    const who = holder(r);
    return this.update('retry', (src) => retry(src, idIn(src, id), who, formatClaimedAt(Math.ceil((this.now() + delayMs) / 1000) * 1000)));
  }

  /**
   * Put a done or failed task back to open (`[ ]`), its reason or commit
   * dropped, so it can be claimed again. CONFLICT for a claim (its holder
   * releases it; a lapsed one is the reaper's) or a task already open.
   */
  async reopen(id: string, options: { by?: string } = {}): Promise<Task> {
    reopenRequest(id, options);
    return this.update('reopen', (src) => reopen(src, idIn(src, id)), options.by);
  }

  /**
   * Reopen every claim past its own lease; with `ttl`, also every claim at
   * least that old whatever its lease (the operator's override). Untimed ADW
   * claims only with `includeUntimed`. With `maxAttempts`, a claim whose task
   * has had that many attempts is parked (failed) instead. Returns them as they were, saying which it reopened and which it parked.
   */
  async reap(options: ReapOptions = {}): Promise<Reaped> {
    const r = reapRequest(options);
    const dryRun = r.dryRun;
    const max = r.maxAttempts === undefined ? {} : { maxAttempts: r.maxAttempts };
    const decide = (src: ByteString) => reap(src, { ...r, now: this.now() });
    // A dry run writes nothing: the shared read lock, and read permission, are enough.
    const done = dryRun ? await this.store.read((src) => resultOf(decide(src))) : await this.update('reap', decide);
    return reapedOf(done, max.maxAttempts);
  }

  /** Append an open task under the lock, at the end of `section` (created if missing) or of the board. */
  async add(text: string, options: { section?: string } = {}): Promise<Task> {
    const r = addRequest(text, options);
    return this.update('add', (src) => add(src, r.text, r.section));
  }

  /**
   * Lock paths for the task the caller holds, written as lock lines under it
   * (see docs/FORMAT.md). CONFLICT naming the holder when a live claim on
   * another task holds one in the way (a write against anything, a read
   * against a write), or when the caller's claim has lapsed; a fenced write
   * with `claimedAt`, like the other holder writes. The locks leave with the
   * claim: done, fail, release, reap and a takeover remove them.
   */
  async lockPaths(id: string, options: LockPathsOptions): Promise<Task> {
    const who = holder(holderRequest(id, options));
    const want = pathRequest(options, 'lockPaths');
    return this.update('lock', (src) => lockPaths(src, idIn(src, id), who, want, this.now()));
  }

  /** Let go of the named locks of the caller's task, or of all of them without `paths`; NOT_FOUND for a path it does not lock. */
  async unlockPaths(id: string, options: UnlockPathsOptions): Promise<Task> {
    const who = holder(holderRequest(id, options));
    const paths = options.paths === undefined ? undefined : pathList(options.paths, 'paths');
    return this.update('unlock', (src) => unlockPaths(src, idIn(src, id), who, paths));
  }

  /** Every path a live claim holds now (declared on its line or locked under it), in file order. */
  async paths(): Promise<HeldPath[]> {
    return this.store.read((src) => listPaths(src, this.now()));
  }

  /**
   * May `by` touch these paths? Resolves with the caller's own holds in the
   * way (often none) when every live claim in the way is the caller's; else
   * CONFLICT naming the first other holder.
   */
  async checkPaths(options: CheckPathsOptions): Promise<HeldPath[]> {
    const by = checkBy(options?.by);
    const want = pathRequest(options, 'checkPaths');
    return this.store.read((src) => checkPaths(src, by, want, this.now()));
  }

  /**
   * The one write path of every transition: decide, check the new bytes read
   * as meant, then write, and journal what the checked plan changed (`via`
   * the operation; `by` who asked, where the plan does not say).
   */
  private update<T>(via: Via, decide: (src: string) => Plan<T>, by?: string): Promise<T> {
    // A clock of the caller's own is not asked the time for a board in memory.
    if (this.now === Date.now) warmUp(decide);
    return this.store.update((src) => {
      const plan = checkReading(src, decide(src));
      const at = this.now();
      return { ...plan, journal: () => planJournal(src, plan, via, at, by) };
    });
  }

  /** The board's bytes, read under a shared lock: the snapshot a person edits. */
  async snapshot(): Promise<Buffer> {
    return this.store.read((src) => Buffer.from(src, 'latin1'));
  }

  /**
   * Apply a person's edit of `snapshot` (what `snapshot()` returned) to the
   * board as it is now: a three-way merge that keeps what was done
   * meanwhile. Where both changed one task it writes nothing and returns the
   * conflicts. Markers typed by hand are taken as typed. The merge (seconds
   * on a 100,000-task board) is made outside the lock against the board as
   * read, and applied under the exclusive lock only if the board still holds
   * those bytes; else it is made again. `onMerged(attempt)` is called after
   * each merge, before it is applied.
   */
  async applyEdit(snapshot: Uint8Array | string, mine: Uint8Array | string, options: { onMerged?: (attempt: number) => void } = {}): Promise<EditResult> {
    if (!isBytes(snapshot) || !isBytes(mine)) throw usage('applyEdit: snapshot and mine must be strings or byte arrays');
    const base = toByteString(snapshot);
    const edited = toByteString(mine);
    // Not a transition, so not through checkReading: the merge makes its own check, that every line reads as on the side it came from.
    for (let attempt = 1; attempt <= MERGES_OUTSIDE_LOCK; attempt++) {
      const board = await this.store.read((src) => src);
      const planned = journalled(board, applyEdit(board, base, edited), this.now());
      options.onMerged?.(attempt);
      const applied = await this.store.update((src) => (src === board ? planned : STALE));
      if (applied !== STALE_RESULT) return applied;
    }
    // A board that changed under every merge: the last one is made under the lock, so the edit lands.
    return this.store.update((src) => {
      const planned = journalled(src, applyEdit(src, base, edited), this.now(), true);
      options.onMerged?.(MERGES_OUTSIDE_LOCK + 1);
      return planned;
    });
  }

  /** The board's events, oldest first, from its journal (none when it keeps none: see docs/FORMAT.md). */
  async history(options: string | HistoryOptions = {}): Promise<HistoryEvent[]> {
    const r = historyRequest(options);
    return journalEvents(await this.store.journal(), r);
  }

  /**
   * Wait out the interval, or until the board's file changes (its directory's
   * notifications, with a poll behind them: see changes.ts): a task done
   * elsewhere may have let a `[⏰]` or an `{after: …}` wait go.
   */
  async waitForWork(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
    if (signal?.aborted) return;
    const changed = await this.changes();
    await new Promise<void>((resolve) => {
      const done = () => {
        cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const cancel = after(timeoutMs, done);
      signal?.addEventListener('abort', done, { once: true });
      changed.start(done);
    });
    await changed.close();
  }

  /**
   * Let go of the board directory's descriptor this process keeps for its
   * lock (at once when no operation of the process is using it, else after
   * the last one). Without close() it goes 10 s after the last operation.
   */
  async close(): Promise<void> {
    this.store.close();
  }
}

/** How often an edit is merged outside the lock before the board's churn has it merged under the lock. */
const MERGES_OUTSIDE_LOCK = 3;
/** The answer of an apply that found the board changed since the merge was made: nothing written. */
const STALE_RESULT: EditResult = { merged: false, conflicts: [] };
const STALE = { edits: [], result: STALE_RESULT, journal: () => [] };

/**
 * An edit's plan with its journal lines: the tasks before and after it,
 * compared. Made at once (outside the lock, where the merge is made) unless
 * `underLock`: an edit is rare, and reads the whole board anyway.
 */
function journalled(src: ByteString, planned: ReturnType<typeof applyEdit>, at: number, underLock = false): Change<EditResult> {
  if (planned.edits.length === 0) return { ...planned, journal: () => [] };
  const make = () => editJournal(listTasks(src), listTasks(applyEdits(src, [...planned.edits].sort((a, b) => a.start - b.start))), at);
  if (underLock) return { ...planned, journal: make };
  const lines = make();
  return { ...planned, journal: () => lines };
}

function isBytes(x: unknown): x is Uint8Array | string {
  return typeof x === 'string' || x instanceof Uint8Array;
}

/** The holder part of a request, as the transitions take it. */
function holder(r: HolderRequest): { by: string; claimedAt?: string } {
  return r.claimedAt === undefined ? { by: r.by } : { by: r.by, claimedAt: r.claimedAt };
}
