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
  path: string;
  st: Stats;
  unlock: () => void;
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
      writeInPlace(o.fd, o.path, inPlace.at, next.subarray(inPlace.at, inPlace.end), this.opts.durable);
    } else {
      writeReplace(o.path, o.st, next, edits, { durable: this.opts.durable, cleanOrphans: this.lockKind !== 'none' });
    }
  }

  /** Open the file the path names now and lock it; retry if it was replaced while we waited. */
  private async open(exclusive: boolean): Promise<Opened> {
    for (;;) {
      const path = this.resolve();
      let fd: number;
      try {
        fd = openSync(path, exclusive ? 'r+' : 'r');
      } catch (err) {
        throw ioError(this.file, err);
      }
      let unlock: (() => void) | null = null;
      try {
        const opened = fstatSync(fd);
        if (!opened.isFile()) throw new MdclaimError('IO', `${this.file}: not a regular file`, { file: this.file });
        const current = () => sameFile(opened, path);
        unlock = await acquire(this.tryLock, fd, path, exclusive || this.lockKind === 'proper-lockfile', this.opts.lockTimeoutMs, current);
        // Locked, and still the file the path names: nobody replaced it while we waited.
        if (unlock && current()) return { fd, path, st: fstatSync(fd), unlock };
      } catch (err) {
        unlock?.();
        closeSync(fd);
        throw err instanceof MdclaimError ? err : ioError(this.file, err);
      }
      unlock?.();
      closeSync(fd);
    }
  }

  private resolve(): string {
    let path: string;
    try {
      // A symlinked board stays a symlink: lock and write its target.
      path = realpathSync.native(this.file);
    } catch (err) {
      throw ioError(this.file, err);
    }
    if (!this.fsChecked) {
      refuseNetworkFs(path, this.opts.allowNetworkFs);
      this.fsChecked = true;
    }
    return path;
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

function readAll(o: Opened): { buf: Buffer; src: ByteString } {
  const buf = Buffer.allocUnsafe(o.st.size);
  let off = 0;
  while (off < buf.length) {
    const n = readSync(o.fd, buf, off, buf.length - off, off);
    if (n === 0) break;
    off += n;
  }
  const read = buf.subarray(0, off);
  return { buf: read, src: read.toString('latin1') };
}

function release(o: Opened): void {
  try {
    o.unlock();
  } finally {
    // The last close of a file just replaced frees its blocks, which costs more
    // than the claim itself: do it on the thread pool, after the lock is released.
    close(o.fd, () => {});
  }
}

function ioError(file: string, err: unknown): MdclaimError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return new MdclaimError('IO', `${file}: no such file (create it, or pass --file)`, { file, cause: err });
  if (e.code === 'EACCES' || e.code === 'EPERM') return new MdclaimError('IO', `${file}: permission denied`, { file, cause: err });
  if (e.code === 'EISDIR') return new MdclaimError('IO', `${file}: not a regular file`, { file, cause: err });
  return new MdclaimError('IO', `${file}: ${e.message}`, { file, cause: err });
}
