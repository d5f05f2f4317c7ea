import { MdclaimError, usage } from '../errors.js';
import { isValidBy } from '../format/marker.js';
import type { Task } from '../format/task.js';
import { FileStore, type WriteMode } from '../storage/file-store.js';
import type { LockKind } from '../storage/lock.js';
import { add } from './add.js';
import { claimById, claimNext } from './claim.js';
import { parseDuration } from './duration.js';
import { done, fail, heartbeat, release } from './finish.js';
import { reap } from './reap.js';
import { listTasks } from './walk.js';

export interface BoardOptions {
  /** How old a claim must be before `next`/`claim` may take it over (default `30m`). */
  lease?: string | number;
  /** `auto` writes one line in place when that is crash-atomic, else replaces the file; `replace` always replaces (default `MDCLAIM_WRITE` or `auto`). */
  write?: WriteMode;
  /** fdatasync the file (and the directory after a replace) before returning (default false). */
  durable?: boolean;
  /** Which lock to take: `flock` on the board's directory, or `mkdir` (old name `proper-lockfile`) where fs-ext cannot load; every claimer of a board must take the same one (default `MDCLAIM_LOCK` or `flock`). */
  lock?: LockKind | 'proper-lockfile';
  /** Give up waiting for the lock after this long (default `10s`). */
  lockTimeout?: string | number;
  /** Allow a board on NFS/SMB, where locks do not exclude other hosts (default `MDCLAIM_ALLOW_NFS=1` or false). */
  allowNetworkFs?: boolean;
  /** The clock, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
}

export interface NextOptions {
  by: string;
  lease?: string | number;
  tags?: readonly string[];
  section?: string;
}

export const DEFAULT_LEASE = '30m';

/** Open a board file; nothing is read until an operation runs. */
export function openBoard(path: string, options: BoardOptions = {}): Board {
  return new Board(path, options);
}

export class Board {
  private readonly store: FileStore;
  private readonly leaseMs: number;
  private readonly now: () => number;

  constructor(readonly path: string, options: BoardOptions = {}) {
    if (typeof path !== 'string' || path === '') throw usage('openBoard: path must be a non-empty string');
    const write = options.write ?? (process.env['MDCLAIM_WRITE'] as WriteMode | undefined) ?? 'auto';
    if (write !== 'auto' && write !== 'replace') throw usage(`write must be "auto" or "replace", got "${String(write)}"`);
    this.leaseMs = parseDuration(options.lease ?? DEFAULT_LEASE, 'lease');
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
    });
  }

  /** Which lock this board takes: `flock`, or `mkdir` when chosen. Throws IO when flock is wanted and fs-ext cannot load. */
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

  /** Claim the first claimable task (in file order) that has every tag and is in the section; null when none is. */
  async next(options: NextOptions): Promise<Task | null> {
    const by = checkBy(options?.by);
    const leaseMs = this.lease(options.lease);
    const filter = { ...(options.tags ? { tags: checkTags(options.tags) } : {}), ...(options.section === undefined ? {} : { section: options.section }) };
    return this.store.update((src) => claimNext(src, filter, { by, leaseMs, now: this.now() }));
  }

  /** Claim one task by id. Throws CONFLICT (with `holder`) when someone else holds it, or it is finished or blocked. */
  async claim(id: string, options: { by: string; lease?: string | number }): Promise<Task> {
    const by = checkBy(options?.by);
    const leaseMs = this.lease(options.lease);
    checkId(id);
    return this.store.update((src) => claimById(src, id, { by, leaseMs, now: this.now() }));
  }

  /** Renew the holder's claim timestamp. */
  async heartbeat(id: string, options: { by: string }): Promise<Task> {
    const by = checkBy(options?.by);
    checkId(id);
    return this.store.update((src) => heartbeat(src, id, by, this.now()));
  }

  async done(id: string, options: { by: string; commit?: string }): Promise<Task> {
    const by = checkBy(options?.by);
    checkId(id);
    return this.store.update((src) => done(src, id, by, options.commit));
  }

  async fail(id: string, options: { by: string; reason?: string }): Promise<Task> {
    const by = checkBy(options?.by);
    checkId(id);
    return this.store.update((src) => fail(src, id, by, options.reason));
  }

  async release(id: string, options: { by: string }): Promise<Task> {
    const by = checkBy(options?.by);
    checkId(id);
    return this.store.update((src) => release(src, id, by));
  }

  /** Revert claims older than `ttl` to open; returns them as they were. */
  async reap(options: { ttl?: string | number; dryRun?: boolean; includeUntimed?: boolean } = {}): Promise<Task[]> {
    const ttlMs = options.ttl === undefined ? this.leaseMs : parseDuration(options.ttl, 'ttl');
    const dryRun = options.dryRun ?? false;
    const includeUntimed = options.includeUntimed ?? false;
    return this.store.update((src) => reap(src, { ttlMs, dryRun, includeUntimed, now: this.now() }));
  }

  /** Append an open task under the lock, at the end of `section` (created if missing) or of the board. */
  async add(text: string, options: { section?: string } = {}): Promise<Task> {
    if (typeof text !== 'string') throw usage(`text must be a string, got ${typeof text}`);
    return this.store.update((src) => add(src, text, options.section));
  }

  private lease(lease: string | number | undefined): number {
    return lease === undefined ? this.leaseMs : parseDuration(lease, 'lease');
  }
}

function checkBy(by: unknown): string {
  if (typeof by !== 'string' || !isValidBy(by)) {
    throw usage(`by must be 1–64 of [A-Za-z0-9._:@-], got ${typeof by === 'string' ? `"${by}"` : typeof by}`);
  }
  return by;
}

function checkId(id: unknown): void {
  if (typeof id !== 'string' || id === '') throw new MdclaimError('USAGE', `task id must be a non-empty string, got ${typeof id}`);
}

function checkTags(tags: readonly string[]): string[] {
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || t === '')) throw usage('tags must be an array of non-empty strings');
  return [...tags];
}
