import { accessSync, close, closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import { MdclaimError } from '../errors.js';
import type { ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { isSymlinkRefusal } from '../platform/symlink.js';
import { refuseNetworkFs } from './fs-type.js';
import { assertUnchanged } from './guard.js';
import { ioError } from './io-error.js';
import { retireDirLock } from './dir-lock.js';
import { acquire, chooseLock, type Lock, type LockKind, type LockTarget } from './lock.js';
import { scratch } from './scratch.js';
import { inPlaceRange, writeInPlace, writeReplace } from './write.js';
import { journalOf, readJournal, recordChange } from './journal.js';

export type WriteMode = 'auto' | 'replace';

export interface StoreOptions {
  write: WriteMode;
  durable: boolean;
  /** `flock`, `mkdir` (or its old name `proper-lockfile`), `none`; default MDCLAIM_LOCK, else flock. */
  lock?: string;
  lockTimeoutMs: number;
  allowNetworkFs: boolean;
  /** Append each change's journal lines to the board's journal (default true; see journal.ts). */
  journal?: boolean;
  /** Told why a change's journal lines could not be written; the change stands (default: one line on stderr). */
  warn?: (message: string) => void;
}

/**
 * What a change decided: the edits to make (none: leave the file alone), how
 * to make the lines its history records (JSON, appended to the journal after
 * the edits are written, made only where the board keeps a journal; every
 * change says, so no write can forget it), and what to return, or (`later`)
 * how to build it once the lock is let go.
 */
export type Change<T> = Outcome<T> & { edits: Edit[]; journal: () => readonly string[] };

/** What a change hands back: its result, or how to build it once the lock is let go. */
export type Outcome<T> = { result: T } | { later: () => T };

/** What a change returns: its result, or the one `later` builds. */
export function resultOf<T>(change: Outcome<T>): T {
  return 'later' in change ? change.later() : change.result;
}

export interface HoldOptions {
  exclusive: boolean;
  /** Default: the store's lock timeout. */
  timeoutMs?: number;
}

/** The lock, held, and where: what take gives back. */
interface Taken {
  target: LockTarget;
  unlock: () => void;
}

/** The lock, held, and the board opened under it: what read and update work on. */
interface Held extends Taken {
  o: Opened;
}

interface Opened {
  fd: number;
  /** Stat of the descriptor: identity, mode, links (sizes come from reading). */
  st: Stats;
  /** Did this operation rename a new file over the one it holds? */
  replaced: boolean;
}

// NOFOLLOW: a symlink put in place after we resolved the path would lead outside the locked directory.
// NONBLOCK: opening a FIFO would wait for a writer; it opens at once, and fstat then refuses it.
const OPEN_FLAGS = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The board file on disk. The lock is taken on the board's directory (see
 * flock.ts), so once it is held the file the path names is the board, however
 * often it was replaced while we waited. Every operation takes the lock on a
 * fresh descriptor, then opens, reads, decides, writes and verifies
 * synchronously: no other operation, in this process or another, can see or
 * act on the file in between, and nothing is awaited while the lock is held.
 */
export class FileStore {
  private chosen: Lock | undefined;
  private fsChecked = false;
  /** The directory this store last found writable: checked again only when the board's directory changes. */
  private writableDir: string | null = null;
  /** When this store last looked for temp files that killed writers left (0: not yet). */
  private cleanedAt = 0;
  /** Directories this store has locked, for close(). */
  private readonly lockedDirs = new Set<string>();
  /**
   * Where the last operation found the board, when the path named a regular
   * file itself, not a symlink: the next read or update locks that directory
   * without an lstat, and the open under the lock (O_NOFOLLOW) finds out if
   * the path has become a symlink since (see lockAndOpen).
   */
  private direct: LockTarget | null = null;
  /**
   * Descriptors of boards this store replaced, still to close (see
   * closeReplaced): closed together once the current turn of the event loop
   * is over, or at once by close().
   */
  private replacedFds: number[] = [];

  constructor(readonly file: string, private readonly opts: StoreOptions) {}

  /** The lock, chosen at the first operation (so a missing flock provider fails that operation, as IO). */
  get lock(): Lock {
    this.chosen ??= chooseLock(this.opts.lock);
    return this.chosen;
  }

  get lockKind(): LockKind {
    return this.lock.kind;
  }

  /**
   * Hold the board's lock (shared or exclusive) until the returned function
   * is called: for tools that read or edit the board themselves. Operations
   * of this process wait for it like everyone else's.
   */
  async hold(options: HoldOptions): Promise<() => void> {
    const timeoutMs = options.timeoutMs ?? this.opts.lockTimeoutMs;
    // Always resolved afresh: nothing is opened under this lock to find out that the path has moved.
    const { unlock } = await this.take(options.exclusive, Date.now() + timeoutMs, timeoutMs, null);
    let done = false;
    return () => {
      if (!done) (done = true), unlock();
    };
  }

  /** Let go of what the lock keeps open between operations (see DirLock.retire). */
  close(): void {
    this.closeReplacedNow();
    for (const dir of this.lockedDirs) retireDirLock(dir);
    this.lockedDirs.clear();
  }

  /**
   * Close the descriptor of a board this operation replaced, after unlocking.
   * Its last close frees the old file's blocks, which costs more than a claim
   * on a big board: a process that goes on working has that done on the
   * thread pool, after this turn of the event loop. One that closes the
   * store first (the CLI, which closes the board before it exits) closes it
   * there, on its own thread: starting the pool for it would start four
   * threads the process then waits for twice, at the close and at exit.
   */
  private closeReplaced(fd: number): void {
    // One still open from an earlier operation of this turn (a caller whose operations resolve without a turn of the
    // event loop between them, as a loop of claims on a free lock does) is closed now, on the pool: they never pile up.
    // Each holds its old file's inode and blocks; a thousand of them made every new file here cost 15 times as much to
    // create (ext4 without a journal), and a long enough loop would run out of descriptors.
    if (this.replacedFds.length > 0) this.closeReplacedLater();
    if (this.replacedFds.push(fd) === 1) process.nextTick(() => this.closeReplacedLater());
  }

  private closeReplacedLater(): void {
    for (const fd of this.replacedFds.splice(0)) close(fd, () => {});
  }

  /**
   * The boards replaced this turn, closed now: synchronously on a local file
   * system (a regular file's close), on the pool where a network file system
   * is allowed, whose close may wait for its server.
   */
  private closeReplacedNow(): void {
    if (this.opts.allowNetworkFs) return this.closeReplacedLater();
    for (const fd of this.replacedFds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        // The board is written and unlocked: a failed close of the old file changes nothing of it.
      }
    }
  }

  /** Read under a shared lock: an in-place write is never seen half done. */
  async read<T>(decide: (src: ByteString) => T): Promise<T> {
    const held = this.lockAndOpen(false, Date.now() + this.opts.lockTimeoutMs);
    const { o, unlock } = held instanceof Promise ? await held : held;
    try {
      return decide(readAll(o).src);
    } finally {
      this.close0(o, unlock);
    }
  }

  /** The journal's lines (see journal.ts), read under the board's shared lock: none when it keeps none. */
  async journal(): Promise<string[]> {
    const held = this.lockAndOpen(false, Date.now() + this.opts.lockTimeoutMs);
    const { o, target, unlock } = held instanceof Promise ? await held : held;
    const path = journalOf(target.file);
    try {
      return readJournal(path);
    } catch (err) {
      throw ioError(path, err);
    } finally {
      this.close0(o, unlock);
    }
  }

  /** Read, decide and write under the exclusive lock. */
  async update<T>(decide: (src: ByteString) => Change<T>): Promise<T> {
    const held = this.lockAndOpen(true, Date.now() + this.opts.lockTimeoutMs);
    const { o, target, unlock } = held instanceof Promise ? await held : held;
    let change: Change<T>;
    try {
      const { buf, src } = readAll(o);
      change = decide(src);
      if (change.edits.length > 0) {
        this.write(o, target, buf, change.edits);
        if (this.opts.journal !== false) recordChange(target.file, change.journal, this.opts);
      }
    } finally {
      this.close0(o, unlock);
    }
    return resultOf(change);
  }

  private close0(o: Opened, unlock: () => void): void {
    try {
      if (!o.replaced) closeSync(o.fd);
    } finally {
      unlock();
      if (o.replaced) this.closeReplaced(o.fd);
    }
  }

  private write(o: Opened, target: LockTarget, buf: Buffer, edits: Edit[]): void {
    refuseLinked(target, o.st);
    if (this.writableDir !== target.dir) {
      refuseUnwritableDir(target);
      this.writableDir = target.dir;
    }
    const inPlace = this.opts.write === 'auto' ? inPlaceRange(buf.length, edits) : null;
    // Without a lock (the race harness's control run) another writer's temp file may be live: leave them all.
    const locked = this.lock.kind !== 'none';
    if (inPlace) {
      // Only the bytes from `at` on are written; past the old end too when the line grows.
      const e = edits[0]!;
      assertUnchanged(o.fd, target.file, o.st, buf, inPlace.at, e.bytes.length === e.end - e.start ? e.end : buf.length + 1);
      // The new bytes from `at` to `end`: the edit's, and when the line grows, the rest of the board after it.
      const bytes = Buffer.from(e.bytes, 'latin1');
      writeInPlace(o.fd, target.file, inPlace.at, inPlace.end === e.start + bytes.length ? bytes : Buffer.concat([bytes, buf.subarray(e.end)]), buf, this.opts.durable);
    } else {
      const cleanUp = this.lock.cleanUp;
      // What killed writers left is looked for at this store's first replace and then at most every CLEAN_EVERY_MS:
      // a leftover temp file harms nothing meanwhile, and listing the directory at every claim costs five syscalls.
      const now = Date.now();
      const clean = locked && (this.cleanedAt === 0 || now - this.cleanedAt >= CLEAN_EVERY_MS);
      if (clean) this.cleanedAt = now;
      writeReplace(target.file, o.st, buf, edits, {
        durable: this.opts.durable,
        cleanUp: clean ? (names) => cleanUp?.(target.file, names) : null,
        guard: () => assertUnchanged(o.fd, target.file, o.st, buf, 0, buf.length + 1),
      });
      o.replaced = true;
    }
  }

  /**
   * Take the lock and open the board under it (writable for an exclusive
   * lock); taken at once, without a promise. When the lock was taken where
   * the path led last time and the open fails (the path is a symlink now, a
   * directory, or nothing), the lock is let go and the path resolved again,
   * before the same deadline.
   */
  private lockAndOpen(exclusive: boolean, deadline: number): Held | Promise<Held> {
    const cached = this.direct;
    const taken = this.take(exclusive, deadline, this.opts.lockTimeoutMs, cached);
    const opened = ({ target, unlock }: Taken): Held | Promise<Held> => {
      let o: Opened;
      try {
        o = this.open(target, exclusive);
      } catch (err) {
        unlock();
        if (target !== cached) throw err;
        // Not resolved for this operation: the path may have become a symlink (ELOOP), a directory or nothing since
        // the last. Resolved again, it is locked where it leads, or refused as it would have been at the start.
        this.direct = null;
        return this.lockAndOpen(exclusive, deadline);
      }
      return { target, unlock, o };
    };
    return taken instanceof Promise ? taken.then(opened) : opened(taken);
  }

  /**
   * Resolve the board's real directory (unless `known`), take the lock
   * there, and give it back with the target; one deadline however long the
   * wait. Taken at once, the result comes without a promise (see acquire).
   */
  private take(exclusive: boolean, deadline: number, timeoutMs: number, known: LockTarget | null): Taken | Promise<Taken> {
    let target = known;
    if (target === null) {
      const found = resolve(this.file);
      target = found.target;
      this.direct = found.direct ? target : null;
    }
    if (!this.fsChecked) {
      refuseNetworkFs(target.dir, this.opts.allowNetworkFs, this.file);
      this.fsChecked = true;
    }
    this.lockedDirs.add(target.dir);
    return this.takeAt(target, exclusive, deadline, timeoutMs);
  }

  /**
   * One attempt at the lock of the target's directory. Held, it is checked to
   * still stand for the directory the path names: one that was replaced while
   * this process kept a descriptor of the old one is let go, and the lock of
   * the one the path names now is taken instead, before the same deadline.
   */
  private takeAt(target: LockTarget, exclusive: boolean, deadline: number, timeoutMs: number): Taken | Promise<Taken> {
    const attempt = this.lock.attempt(target, exclusive);
    let waiting: Promise<void> | null;
    try {
      waiting = acquire(attempt, this.file, deadline, timeoutMs);
    } catch (err) {
      attempt.release();
      throw err;
    }
    const held = (): Taken | Promise<Taken> => {
      if (attempt.stillNames && !attempt.stillNames()) {
        attempt.release();
        return this.takeAt(target, exclusive, deadline, timeoutMs);
      }
      return { target, unlock: () => attempt.release() };
    };
    if (waiting === null) return held();
    return waiting.then(held, (err: unknown) => {
      attempt.release();
      throw err;
    });
  }

  /** Open the board the path names now; the lock is held, so it stays that file until we let go. */
  private open(target: LockTarget, writable: boolean): Opened {
    let fd: number;
    try {
      fd = openSync(target.file, (writable ? constants.O_RDWR : constants.O_RDONLY) | OPEN_FLAGS);
    } catch (err) {
      if (isSymlinkRefusal((err as NodeJS.ErrnoException).code, process.platform)) {
        throw new MdclaimError('VERIFY', `${this.file}: became a symlink while mdclaim locked it; run it again`, { file: this.file });
      }
      throw ioError(this.file, err);
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new MdclaimError('IO', `${this.file}: not a regular file`, { file: this.file });
      return { fd, st, replaced: false };
    } catch (err) {
      closeSync(fd);
      throw ioError(this.file, err);
    }
  }
}

/**
 * The board's real directory and its path there: a board reached through a
 * symlink is locked (and replaced) beside its target, so every path to one
 * board takes one lock. Only the last component needs resolving: opening the
 * directory follows the others.
 */
function resolve(file: string): { target: LockTarget; direct: boolean } {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch (err) {
    throw ioError(file, err);
  }
  if (!st.isSymbolicLink()) {
    // Before waiting for the lock: a FIFO, a directory or a device is refused at once.
    if (!st.isFile()) throw new MdclaimError('IO', `${file}: not a regular file`, { file });
    return { target: { file, dir: dirname(file) }, direct: true };
  }
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch (err) {
    throw ioError(file, err);
  }
  return { target: { file: real, dir: dirname(real) }, direct: false };
}

/** How often a long-lived store looks for temp files that killed writers left beside the board. */
const CLEAN_EVERY_MS = 30_000;

/**
 * Before the first byte is written: every later write must be possible too.
 * A hard-linked board would split in two at its first replace, and a board
 * whose directory this user cannot write takes claims in place that it then
 * could never finish (a finish rewrites the file through a temp file beside it).
 */
function refuseLinked(target: LockTarget, st: Stats): void {
  if (st.nlink > 1) {
    throw new MdclaimError(
      'IO',
      `${target.file}: has ${st.nlink} hard links, and a replace would split them into separate boards; keep one name (use a symlink for the others); the board is unchanged`,
      { file: target.file },
    );
  }
}

/** Checked once per store and directory: a directory made read-only later fails the replace itself, with IO and the board unchanged. */
function refuseUnwritableDir(target: LockTarget): void {
  try {
    accessSync(target.dir, constants.W_OK);
  } catch {
    throw new MdclaimError(
      'IO',
      `${target.file}: cannot write in ${target.dir}, where mdclaim writes the new board before renaming it over (make the directory writable for this user); the board is unchanged`,
      { file: target.file },
    );
  }
}

/** Read to the end of the file: a short read of a regular file means the end. */
function readAll(o: Opened): { buf: Buffer; src: ByteString } {
  let buf = scratch('board', o.st.size + 4096);
  let off = 0;
  for (;;) {
    const n = readSync(o.fd, buf, off, buf.length - off, off);
    off += n;
    if (off < buf.length) break;
    // Grown since the stat (a writer that ignores the lock): a larger buffer of its own.
    const bigger = Buffer.allocUnsafe(buf.length * 2);
    buf.copy(bigger, 0, 0, off);
    buf = bigger;
  }
  const read = buf.subarray(0, off);
  return { buf: read, src: read.toString('latin1') };
}

