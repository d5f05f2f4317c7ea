import { close, closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { MdclaimError } from '../errors.js';
import type { ByteString } from '../format/bytes.js';
import { applyEditsToBuffer, type Edit } from '../format/edit.js';
import { refuseNetworkFs } from './fs-type.js';
import { acquire, chooseLock, type LockKind, type TryLock } from './lock.js';
import { inPlaceRange, writeInPlace, writeReplace } from './write.js';

export type WriteMode = 'auto' | 'replace';

export interface StoreOptions {
  write: WriteMode;
  durable: boolean;
  lock?: LockKind;
  lockTimeoutMs: number;
  allowNetworkFs: boolean;
}

/** What a change decided: the edits to make (none: leave the file alone) and what to return. */
export interface Change<T> {
  edits: Edit[];
  result: T;
}

interface Opened {
  fd: number;
  /** Stat of the descriptor, taken before locking: identity and mode (sizes come from reading). */
  st: Stats;
  unlock: () => void;
  /** Did this operation rename a new file over the one it holds? */
  replaced: boolean;
}

/**
 * The board file on disk. Every operation opens a fresh descriptor, takes
 * the lock, reads, decides, writes and verifies, all synchronously once the
 * lock is held: no other operation, in this process or another, can see or
 * act on the file in between, and nothing is awaited while the lock is held.
 */
export class FileStore {
  readonly lockKind: LockKind;
  private readonly tryLock: TryLock;
  private fsChecked = false;

  constructor(readonly file: string, private readonly opts: StoreOptions) {
    const lock = chooseLock(opts.lock);
    this.lockKind = lock.kind;
    this.tryLock = lock.tryLock;
  }

  /** Read under a shared lock: an in-place write is never seen half done. */
  async read<T>(decide: (src: ByteString) => T): Promise<T> {
    const o = await this.open(false);
    try {
      return decide(readAll(o).src);
    } finally {
      release(o);
    }
  }

  /** Read, decide and write under the exclusive lock. */
  async update<T>(decide: (src: ByteString) => Change<T>): Promise<T> {
    const o = await this.open(true);
    try {
      const { buf, src } = readAll(o);
      const { edits, result } = decide(src);
      if (edits.length > 0) this.write(o, buf, edits);
      return result;
    } finally {
      release(o);
    }
  }

  private write(o: Opened, buf: Buffer, edits: Edit[]): void {
    const next = applyEditsToBuffer(buf, edits);
    const inPlace = this.opts.write === 'auto' ? inPlaceRange(buf.length, edits) : null;
    if (inPlace) {
      writeInPlace(o.fd, this.file, inPlace.at, next.subarray(inPlace.at, inPlace.end), this.opts.durable);
    } else {
      writeReplace(this.target(o), o.st, next, edits, { durable: this.opts.durable, cleanOrphans: this.lockKind !== 'none' });
      o.replaced = true;
    }
  }

  /** The real file to rename over: a symlinked board stays a symlink, and its target is replaced. */
  private target(o: Opened): string {
    let path: string;
    try {
      path = realpathSync.native(this.file);
    } catch (err) {
      throw ioError(this.file, err);
    }
    // The link cannot have moved while we hold the lock on its target, unless someone ignores the lock.
    if (!sameFile(o.st, path)) throw new MdclaimError('VERIFY', `${this.file}: the file changed while locked (a writer that ignores the lock?)`, { file: this.file });
    return path;
  }

  /**
   * Open the file the path names now (through any symlink) and lock it;
   * start again if a writer renamed a new file over it while we waited.
   */
  private async open(exclusive: boolean): Promise<Opened> {
    if (!this.fsChecked) {
      refuseNetworkFs(this.file, this.opts.allowNetworkFs);
      this.fsChecked = true;
    }
    for (;;) {
      let fd: number;
      try {
        // Opening a FIFO blocks until a writer comes: look before opening (the fstat below checks what was opened).
        if (!statSync(this.file).isFile()) throw new MdclaimError('IO', `${this.file}: not a regular file`, { file: this.file });
        fd = openSync(this.file, exclusive ? 'r+' : 'r');
      } catch (err) {
        throw err instanceof MdclaimError ? err : ioError(this.file, err);
      }
      let unlock: (() => void) | null = null;
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) throw new MdclaimError('IO', `${this.file}: not a regular file`, { file: this.file });
        const current = () => sameFile(st, this.file);
        unlock = await acquire(this.tryLock, fd, this.file, exclusive || this.lockKind === 'proper-lockfile', this.opts.lockTimeoutMs, current);
        // Locked, and still the file the path names: nobody replaced it while we waited.
        if (unlock && current()) return { fd, st, unlock, replaced: false };
      } catch (err) {
        unlock?.();
        closeSync(fd);
        throw err instanceof MdclaimError ? err : ioError(this.file, err);
      }
      unlock?.();
      closeSync(fd);
    }
  }
}

/** Is the locked descriptor still the file at `path` (not one a writer renamed away while we waited)? */
function sameFile(st: Stats, path: string): boolean {
  try {
    const now = statSync(path);
    return now.ino === st.ino && now.dev === st.dev;
  } catch {
    return false;
  }
}

/** Read to the end of the file: a short read of a regular file means the end. */
function readAll(o: Opened): { buf: Buffer; src: ByteString } {
  let buf = Buffer.allocUnsafe(o.st.size + 4096);
  let off = 0;
  for (;;) {
    const n = readSync(o.fd, buf, off, buf.length - off, off);
    off += n;
    if (off < buf.length) break;
    const bigger = Buffer.allocUnsafe(buf.length * 2);
    buf.copy(bigger, 0, 0, off);
    buf = bigger;
  }
  const read = buf.subarray(0, off);
  return { buf: read, src: read.toString('latin1') };
}

function release(o: Opened): void {
  try {
    o.unlock();
  } finally {
    // The last close of a file just replaced frees its blocks, which costs more
    // than the claim itself: do that one on the thread pool, after unlocking.
    if (o.replaced) close(o.fd, () => {});
    else closeSync(o.fd);
  }
}

function ioError(file: string, err: unknown): MdclaimError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return new MdclaimError('IO', `${file}: no such file (create it, or pass --file)`, { file, cause: err });
  if (e.code === 'EACCES' || e.code === 'EPERM') return new MdclaimError('IO', `${file}: permission denied`, { file, cause: err });
  if (e.code === 'EISDIR') return new MdclaimError('IO', `${file}: not a regular file`, { file, cause: err });
  return new MdclaimError('IO', `${file}: ${e.message}`, { file, cause: err });
}
