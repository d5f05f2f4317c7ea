import {
  closeSync, fchmodSync, fchownSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readdirSync, readSync, renameSync,
  unlinkSync, writeSync, writevSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MdclaimError } from '../errors.js';
import { editPieces, type Edit } from '../format/edit.js';
import { fileSizeLimit } from '../platform/size-limit.js';
import { ioError } from './io-error.js';

/** A write of at most one page, not crossing a page boundary, is seen whole or not at all after a SIGKILL. */
export const PAGE = 4096;

/**
 * The byte range [at, end) of the new file to write in place for these
 * edits, or null when an in-place write would not be crash-atomic: more than
 * one edit, a shrinking file (that needs a second call, ftruncate), or a
 * range that crosses a page.
 */
export function inPlaceRange(oldSize: number, edits: readonly Edit[]): { at: number; end: number } | null {
  if (edits.length !== 1) return null;
  const e = edits[0]!;
  const delta = e.bytes.length - (e.end - e.start);
  if (delta < 0) return null;
  // Same length: only the changed bytes. Longer: the line and everything after it shifts.
  const end = delta === 0 ? e.start + e.bytes.length : oldSize + delta;
  if (end > e.start && Math.floor(e.start / PAGE) !== Math.floor((end - 1) / PAGE)) return null;
  return { at: e.start, end };
}

let limit: number | undefined;

/**
 * This process's file size limit (`ulimit -f`, see platform/size-limit), read once: the kernel cuts a
 * write that passes it short, so a write that would is refused beforehand.
 * (A limit lowered later from outside, by prlimit, is caught by the short write.)
 */
function sizeLimit(): number {
  if (limit === undefined) {
    limit = fileSizeLimit(process.platform);
  }
  return limit;
}

function refusePastLimit(file: string, end: number): void {
  if (end > sizeLimit()) {
    throw new MdclaimError('IO', `${file}: the write would pass this process's file size limit (ulimit -f, ${sizeLimit()} bytes); the board is unchanged`, { file });
  }
}

/**
 * One pwrite over the old bytes. A write cut short (a limit lowered meanwhile,
 * a full disk, an I/O error) never stands: the old bytes go back, the file is
 * cut back to its old size, and the operation fails with IO.
 */
export function writeInPlace(fd: number, file: string, at: number, bytes: Buffer, old: Buffer, durable: boolean): void {
  refusePastLimit(file, at + bytes.length);
  let n: number;
  try {
    n = writeSync(fd, bytes, 0, bytes.length, at);
  } catch (err) {
    throw ioError(file, err, true); // a failed write(2) wrote nothing
  }
  if (n !== bytes.length) {
    restore(fd, file, at, n, old);
    throw new MdclaimError('IO', `${file}: short write (${n} of ${bytes.length} bytes; a full disk or a file size limit?); the board is unchanged`, { file });
  }
  if (durable) {
    try {
      fdatasyncSync(fd);
    } catch (err) {
      restore(fd, file, at, n, old);
      throw ioError(file, err, true);
    }
  }
  verify(fd, file, bytes, at);
}

/** Put back the old bytes over the `n` written at `at`, and cut off what grew past the old end. */
function restore(fd: number, file: string, at: number, n: number, old: Buffer): void {
  const back = old.subarray(at, Math.min(at + n, old.length));
  try {
    if (back.length > 0 && writeSync(fd, back, 0, back.length, at) !== back.length) throw new Error('short write');
    if (at + n > old.length) ftruncateSync(fd, old.length);
  } catch (err) {
    throw new MdclaimError('IO', `${file}: a write failed and the old bytes could not be put back (${(err as Error).message}): check the board from byte ${at}`, { file, cause: err });
  }
}

/** Read back what was written: the check that this writer's bytes are the ones on disk. */
function verify(fd: number, path: string, expected: Buffer, at: number): void {
  const got = Buffer.allocUnsafe(expected.length);
  const n = readSync(fd, got, 0, got.length, at);
  if (n !== expected.length || !got.equals(expected)) {
    throw new MdclaimError('VERIFY', `${path}: the write did not read back as written at byte ${at}`, { file: path });
  }
}

const TEMP = /^[0-9a-f]{12}\.mdclaim\.tmp$/;

/**
 * `.tasks.md.<12 hex>.mdclaim.tmp`: the board's name is all that precedes a
 * fixed-length tail, so no other board's temp file matches. The name is
 * created with O_EXCL (never through a file or symlink put there first), so
 * it needs to be unlikely, not secret: Math.random, not node:crypto, which
 * costs a CLI start a module load and every name a getpid.
 */
const hex6 = () => Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
const tempName = (base: string) => `.${base}.${hex6()}${hex6()}.mdclaim.tmp`;

/** Create a new temp file beside the board; a name taken already (by chance, or by someone) is replaced by another. */
function createTemp(dir: string, base: string): { tmp: string; fd: number } {
  for (let tries = 0; ; tries++) {
    const tmp = join(dir, tempName(base));
    try {
      return { tmp, fd: openSync(tmp, 'wx+', 0o600) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 8) throw err;
    }
  }
}
const isTempOf = (base: string, name: string) =>
  name.length === base.length + 26 && name.startsWith(`.${base}.`) && TEMP.test(name.slice(base.length + 2));

export interface ReplaceOptions {
  durable: boolean;
  /** Called on the names in the board's directory to remove what killed writers left (under the lock); null: do not look this time. */
  cleanUp: ((names: readonly string[]) => void) | null;
  /** The last check before the rename (see assertUnchanged). */
  guard: () => void;
}

/**
 * Write the whole new file (`old` with `edits` made) beside the old one and
 * rename it over: readers and crashes see the old file or the new one, never
 * a mix. The temp file is
 * created exclusively under an unpredictable name and takes the old file's
 * mode, owner and group where allowed (never its ACLs or xattrs). A temp
 * file written short is never renamed.
 */
export function writeReplace(path: string, st: Stats, old: Buffer, edits: readonly Edit[], opts: ReplaceOptions): void {
  const pieces = editPieces(old, edits);
  const size = pieces.reduce((n, p) => n + p.length, 0);
  refusePastLimit(path, size);
  const dir = dirname(path);
  const base = basename(path);
  if (opts.cleanUp) opts.cleanUp(removeOrphans(dir, base));
  let tmp: string;
  let fd: number;
  try {
    ({ tmp, fd } = createTemp(dir, base));
  } catch (err) {
    throw new MdclaimError('IO', `${path}: cannot create a temporary file in ${dir}: ${(err as Error).message}; the board is unchanged`, { file: path, cause: err });
  }
  try {
    fchmodSync(fd, st.mode & 0o7777);
    keepOwner(fd, st);
    // The new file in one writev of the pieces it is made of (no copy of the whole).
    writeAll(fd, path, pieces, size);
    if (opts.durable) fdatasyncSync(fd);
    let shift = 0;
    for (const e of [...edits].sort((a, b) => a.start - b.start)) {
      verify(fd, path, Buffer.from(e.bytes, 'latin1'), e.start + shift);
      shift += e.bytes.length - (e.end - e.start);
    }
    opts.guard();
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already renamed or gone
    }
    throw ioError(path, err, true);
  } finally {
    closeSync(fd);
  }
  if (opts.durable) syncDir(dir);
}

/** Write `pieces` (`size` bytes in all) from the start of the file, however many calls that takes. */
function writeAll(fd: number, path: string, pieces: Buffer[], size: number): void {
  let at = 0;
  let left = pieces.filter((p) => p.length > 0);
  while (at < size) {
    const n = writevSync(fd, left, at);
    if (n === 0) throw new MdclaimError('IO', `${path}: short write of the new file; the board is unchanged`, { file: path });
    at += n;
    // Cut short: what is left of the pieces.
    let skip = n;
    while (left.length > 0 && skip >= left[0]!.length) skip -= left.shift()!.length;
    if (skip > 0) left[0] = left[0]!.subarray(skip);
  }
}

/** The old owner and group; a user who may not give the file away may still keep its group (if a member of it). */
function keepOwner(fd: number, st: Stats): void {
  try {
    fchownSync(fd, st.uid, st.gid);
  } catch {
    try {
      fchownSync(fd, -1, st.gid);
    } catch {
      // not a member of the group either: the file becomes the user's, as any editor's save would
    }
  }
}

/** Remove this board's temp files that killed writers left; returns the directory's names for the lock's own clean-up. */
function removeOrphans(dir: string, base: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  for (const name of names) {
    if (!isTempOf(base, name)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // gone already
    }
  }
  return names;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
