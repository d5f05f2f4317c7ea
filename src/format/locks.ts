import { bytes, utf8, type ByteString } from './bytes.js';
import { claimInstant } from './claim-time.js';
import { formatClaimedAt } from './marker.js';
import type { PathMode } from './paths.js';
import type { TaskLine } from './scan.js';

/**
 * Path locks taken while a task is worked on live in the board, as list items
 * directly under the task's line, one a path:
 *
 *     - [🟡, dana, 2026-11-30T04:06:29Z] Refactor the login {writes: src/auth/}
 *       - 🔒 write src/auth/session.ts since 2026-11-30T04:10:00Z
 *       - 🔒 read docs/api.md since 2026-11-30T04:10:00Z
 *
 * A lock line starts, after its indentation and an optional `-`, `*` or `+`,
 * with 🔒: no block starts with that, so the line is a paragraph line (or a
 * list item's) wherever it stands, and never a task. The lines directly after
 * a task line (no blank line between) that read as lock lines are its locks.
 */
export interface PathLock {
  mode: PathMode;
  /** As the line writes it (mdclaim writes the normal form). */
  path: string;
  /** When the lock was taken, RFC 3339 as a claim time. */
  since?: string;
}

/**
 * A lock line's `since` as every board reads it: the instant it names (read
 * by claimInstant, as a claim time is), written as mdclaim writes times, to
 * the second; undefined when it names none. So `+00:00` and `.5Z` are read
 * alike by a file board and by a PostgreSQL board's import.
 */
export function lockSince(text: string | undefined): string | undefined {
  const at = text === undefined ? null : claimInstant(text);
  return at === null ? undefined : formatClaimedAt(at);
}

/** A lock line and where it is: [start, end) is the line without its line ending. */
export interface LockLine extends PathLock {
  start: number;
  end: number;
}

const LOCK = bytes('🔒');
const LOCK_LINE = new RegExp(`^[ \\t]*(?:[-*+][ \\t]+)?${LOCK}[ \\t]+(write|read)[ \\t]+([^ \\t]+)(?:[ \\t]+since[ \\t]+(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})))?[ \\t]*$`);

/**
 * Does the board hold a lock glyph anywhere? If not, no task has locks. The
 * search is for the glyph's last two bytes, then the whole glyph where they
 * stand: its first byte starts every 4-byte UTF-8 character, as the 🟡 of
 * every claimed line, and a search for it stops at each one.
 */
export function mayHoldLocks(src: ByteString): boolean {
  for (let at = src.indexOf(LOCK_TAIL, 2); at >= 0; at = src.indexOf(LOCK_TAIL, at + 1)) {
    if (src.startsWith(LOCK, at - 2)) return true;
  }
  return false;
}

const LOCK_TAIL = LOCK.slice(2);

/** The lock lines directly after the task line that ends (before its line ending) at `taskEnd`. */
export function locksAfter(src: ByteString, taskEnd: number): LockLine[] {
  const out: LockLine[] = [];
  for (let pos = afterEnding(src, taskEnd); pos < src.length && startsLikeLock(src, pos); ) {
    const end = lineEnd(src, pos);
    const lock = readLockLine(src, pos, end);
    if (lock === null) break;
    out.push(lock);
    if (end >= src.length) break;
    pos = afterEnding(src, end);
  }
  return out;
}

/** The lock on the line [start, end), or null when it is not a lock line. */
export function readLockLine(src: ByteString, start: number, end: number): LockLine | null {
  if (!startsLikeLock(src, start)) return null;
  const m = LOCK_LINE.exec(src.slice(start, end));
  if (m === null) return null;
  const lock: LockLine = { mode: m[1] as PathMode, path: utf8(m[2]!), start, end };
  if (m[3] !== undefined) lock.since = m[3];
  return lock;
}

/** The cheap test, before the line's end is even looked for: after blanks and an optional bullet, 🔒. */
function startsLikeLock(src: ByteString, pos: number): boolean {
  let i = pos;
  while (src.charCodeAt(i) === 0x20 || src.charCodeAt(i) === 0x09) i++;
  const c = src.charCodeAt(i);
  if (c === 0x2d || c === 0x2a || c === 0x2b) {
    i++;
    while (src.charCodeAt(i) === 0x20 || src.charCodeAt(i) === 0x09) i++;
  }
  return src.charCodeAt(i) === 0xf0 && src.startsWith(LOCK, i);
}

/** One lock line as mdclaim writes it (UTF-8 text; callers encode), without its line ending. */
export function renderLock(indent: string, lock: PathLock): string {
  return `${indent}- 🔒 ${lock.mode} ${lock.path}${lock.since === undefined ? '' : ` since ${lock.since}`}`;
}

/**
 * The indentation of a task's lock lines: under a list item, its content
 * column (the column of the task's `[`), so the locks are a list nested in
 * the item; under a bare line, two columns in.
 */
export function lockIndent(src: ByteString, t: TaskLine): string {
  return lockIndentAfter(src.slice(t.start, t.markerStart));
}

/** lockIndent of a task line whose bytes before its marker are `prefix`. */
export function lockIndentAfter(prefix: string): string {
  let col = 0;
  for (let i = 0; i < prefix.length; i++) col = prefix.charCodeAt(i) === 0x09 ? col + 4 - (col % 4) : col + 1;
  const listItem = /[-*+.)][ \t]+$/.test(prefix);
  return ' '.repeat(listItem ? col : col + 2);
}

/** The line ending after the task line that ends at `end` (or, at the end of the file, the file's first). */
export function lineEnding(src: ByteString, end: number): string {
  if (end < src.length) {
    if (src.charCodeAt(end) === 0x0a) return '\n';
    return src.charCodeAt(end + 1) === 0x0a ? '\r\n' : '\r';
  }
  const lf = src.indexOf('\n');
  if (lf > 0 && src.charCodeAt(lf - 1) === 0x0d) return '\r\n';
  return lf < 0 && src.includes('\r') ? '\r' : '\n';
}

function lineEnd(src: ByteString, pos: number): number {
  let i = pos;
  while (i < src.length && src.charCodeAt(i) !== 0x0a && src.charCodeAt(i) !== 0x0d) i++;
  return i;
}

function afterEnding(src: ByteString, end: number): number {
  if (src.charCodeAt(end) === 0x0d && src.charCodeAt(end + 1) === 0x0a) return end + 2;
  return end < src.length ? end + 1 : end;
}
