import {
  closeSync, fchmodSync, fchownSync, fdatasyncSync, fsyncSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { MdclaimError } from '../errors.js';
import type { Edit } from '../format/edit.js';

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

export function writeInPlace(fd: number, path: string, at: number, bytes: Buffer, durable: boolean): void {
  const n = writeSync(fd, bytes, 0, bytes.length, at);
  if (n !== bytes.length) throw new MdclaimError('IO', `${path}: short write (${n} of ${bytes.length} bytes)`, { file: path });
  if (durable) fdatasyncSync(fd);
  verify(fd, path, bytes, at);
}

/** Read back what was written: the check that this writer's bytes are the ones on disk. */
function verify(fd: number, path: string, expected: Buffer, at: number): void {
  const got = Buffer.allocUnsafe(expected.length);
  const n = readSync(fd, got, 0, got.length, at);
  if (n !== expected.length || !got.equals(expected)) {
    throw new MdclaimError('VERIFY', `${path}: the write did not read back as written at byte ${at}`, { file: path });
  }
}

const TEMP_SUFFIX = '.mdclaim.tmp';

/**
 * Write the whole new file beside the old one and rename it over: readers
 * and crashes see the old file or the new one, never a mix. The temp file is
 * created exclusively under an unpredictable name and takes the old file's
 * mode and (where allowed) owner. Temp files a killed writer left behind are
 * removed first, under the same lock, so nothing accumulates.
 */
export function writeReplace(
  path: string, st: Stats, buf: Buffer, edits: readonly Edit[], opts: { durable: boolean; cleanOrphans: boolean },
): void {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  if (opts.cleanOrphans) removeOrphans(dir, prefix);
  const tmp = join(dir, `${prefix}${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  let fd: number;
  try {
    fd = openSync(tmp, 'wx+', 0o600);
  } catch (err) {
    throw new MdclaimError('IO', `${path}: cannot create a temporary file in ${dir}: ${(err as Error).message}`, { file: path, cause: err });
  }
  try {
    fchmodSync(fd, st.mode & 0o7777);
    try {
      fchownSync(fd, st.uid, st.gid);
    } catch {
      // not permitted for non-root users: the file becomes theirs, as any editor's save would
    }
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, off);
    if (opts.durable) fdatasyncSync(fd);
    let shift = 0;
    for (const e of [...edits].sort((a, b) => a.start - b.start)) {
      verify(fd, path, Buffer.from(e.bytes, 'latin1'), e.start + shift);
      shift += e.bytes.length - (e.end - e.start);
    }
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already renamed or gone
    }
    if (err instanceof MdclaimError) throw err;
    throw new MdclaimError('IO', `${path}: cannot replace the file: ${(err as Error).message}`, { file: path, cause: err });
  } finally {
    closeSync(fd);
  }
  if (opts.durable) syncDir(dir);
}

function removeOrphans(dir: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // another cleaner got it first
      }
    }
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
