import { usage } from '../errors.js';
import { claimInstant } from '../format/claim-time.js';
import { worktreeOf } from '../format/worktree-section.js';
import type { ByteString } from '../format/bytes.js';
import { textHash, trackerKey } from '../format/id.js';
import { parseAfter } from '../format/after.js';
import { toTask } from '../format/task.js';
import { walk } from '../board/walk.js';
import type { Status } from '../format/marker.js';
import { DEFAULT_LEASE_MS } from '../format/duration.js';
import { bytes } from '../format/bytes.js';
import { lineEnding, lockIndent, locksAfter, lockSince, renderLock, type PathLock } from '../format/locks.js';
import { normalisePath } from '../format/paths.js';
import type { TaskLine } from '../format/scan.js';

/**
 * A document cut into task rows, so that joining the rows in order (lead,
 * marker, body) and then the tail gives the document back byte for byte:
 * headings, prose, comments, blank lines, list markers, CRLF, a BOM and a
 * missing final newline all live in the leads, bodies and tail untouched.
 */
export interface Row {
  /** Bytes from the end of the previous task's line (its line ending included) to this marker. */
  lead: Buffer;
  /** The marker as written; a write replaces it with the rendered status. */
  marker: Buffer;
  /** Bytes from the marker to the end of the line, its line ending included. */
  body: Buffer;
  /** Where the text ends in `body`: a fail appends its reason there, as the file board does. */
  textEnd: number;
  text: string;
  key: string | null;
  hash: string;
  tags: string[];
  section: string | null;
  worktree: string | null;
  status: Status;
  by: string | null;
  /** RFC 3339 as written in the marker. */
  claimedAt: string | null;
  /** A timed claim's own lease (30m when the line names none). */
  leaseMs: number | null;
  commit: string | null;
  reason: string | null;
  /** The paths its text declares, normalised (src/format/declared.ts). */
  writes: string[];
  reads: string[];
  /** What the text waits for (`{after: …}`), as parseAfter reads it. */
  after: string[];
  /** The attempts field after the text (see attempts.ts): its count, a retry's wait, and its bytes from the text's end. */
  attempts: number | null;
  notBefore: string | null;
  triesLen: number;
  /** Lock lines under it, taken into mdclaim.path_lock (see ownLocks); export writes them back. */
  locks: PathLock[];
  /** Line breaks in lead and in body: what line numbers are summed from. */
  leadBreaks: number;
  bodyBreaks: number;
}

export interface Split {
  rows: Row[];
  tail: Buffer;
}

export function splitDocument(src: ByteString): Split {
  const rows: Row[] = [];
  let from = 0;
  // The board's own walk, so what counts as a task (a marker with no text does not) is decided in one place.
  walk(src, (seen) => {
    const t = seen.t;
    const [ts, te] = seen.text;
    const lineEnd = afterLineEnding(src, t.end);
    const own = ownLocks(src, t, lineEnd);
    const task = toTask(src, t, '');
    // A row holds a claim time as an instant: a line whose time names none cannot become one.
    if (task.claimedAt !== undefined && claimInstant(task.claimedAt) === null) {
      throw usage(`line ${t.line}: the claim time ${task.claimedAt} names no instant (no such day; an hour, minute or offset out of range; or outside years 1–9999 UTC)`);
    }
    const lead = src.slice(from, t.markerStart);
    const body = src.slice(t.marker.end, lineEnd);
    rows.push({
      lead: Buffer.from(lead, 'latin1'),
      marker: Buffer.from(src.slice(t.markerStart, t.marker.end), 'latin1'),
      body: Buffer.from(body, 'latin1'),
      textEnd: te - t.marker.end,
      text: task.text,
      key: trackerKey(src, ts, te),
      hash: textHash(src, ts, te),
      tags: task.tags,
      section: task.section ?? null,
      worktree: task.section === undefined ? null : (worktreeOf(task.section) ?? null),
      status: task.status,
      by: task.by ?? null,
      claimedAt: task.claimedAt ?? null,
      leaseMs: task.claimedAt === undefined ? null : (t.marker.leaseMs ?? DEFAULT_LEASE_MS),
      commit: task.commit ?? null,
      reason: task.reason ?? null,
      writes: task.writes ?? [],
      reads: task.reads ?? [],
      after: parseAfter(task.text),
      attempts: seen.tries?.attempts ?? null,
      notBefore: seen.tries?.notBefore ?? null,
      triesLen: seen.triesEnd - te,
      locks: own.locks,
      leadBreaks: breaks(lead),
      bodyBreaks: breaks(body),
    });
    from = own.end;
  });
  return { rows, tail: Buffer.from(src.slice(from), 'latin1') };
}


/**
 * The lock lines under a task, when they are exactly as mdclaim writes them
 * (indent, bullet, normal path, a `since`, the task's line ending, each path
 * once): those become rows of mdclaim.path_lock, and export writes the same
 * bytes back. Any other form stays bytes of the document, as prose.
 */
function ownLocks(src: ByteString, t: TaskLine, lineEnd: number): { locks: PathLock[]; end: number } {
  const none = { locks: [], end: lineEnd };
  const lines = locksAfter(src, t.end);
  if (lines.length === 0 || lineEnd === t.end) return none;
  const indent = lockIndent(src, t);
  const eol = lineEnding(src, t.end);
  const locks: PathLock[] = [];
  let out = '';
  for (const l of lines) {
    const n = normalisePath(l.path);
    // Its time read as the file board reads it (see lockSince); export writes it in mdclaim's form.
    const since = lockSince(l.since);
    if (!('path' in n) || n.path !== l.path || since === undefined || locks.some((k) => k.path === l.path)) return none;
    locks.push({ mode: l.mode, path: l.path, since });
    out += bytes(renderLock(indent, { mode: l.mode, path: l.path, since: l.since! })) + eol;
  }
  return src.startsWith(out, lineEnd) ? { locks, end: lineEnd + out.length } : none;
}

function afterLineEnding(src: ByteString, end: number): number {
  if (src.charCodeAt(end) === 0x0d) return src.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
  return end < src.length ? end + 1 : end;
}

/** Line breaks as CommonMark counts them: \n, \r\n, or a lone \r. */
export function breaks(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && s.charCodeAt(i + 1) !== 0x0a)) n++;
  }
  return n;
}
