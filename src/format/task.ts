import { triesAt, type Tries } from './attempts.js';
import { claimInstant } from './claim-time.js';
import { utf8, type ByteString } from './bytes.js';
import { DEFAULT_LEASE_MS, formatDuration } from './duration.js';
import { formatClaimedAt, type Marker, type Status } from './marker.js';
import { DECLARATION, mayDeclare, parseDeclared, withoutCode } from './declared.js';
import { AFTER, mayWait } from './after.js';
import { locksAfter, lockSince, type PathLock } from './locks.js';
import type { TaskLine } from './scan.js';

/** A task as the library and `--json` show it. */
export interface Task {
  /** A `KEY-123` the text starts with while no other task has that key, else 12 hex of a hash of the text. */
  id: string;
  /** The description after the marker, tags included; a failed line's ` // Failed: …` is `reason`. */
  text: string;
  /** 1-based line number. */
  line: number;
  status: Status;
  by?: string;
  claimedAt?: string;
  /** A timed claim's own lease (`30m` when its line names none), in normal form: `90s`, `2h`, `1d`, `1500ms`. */
  lease?: string;
  /** When a timed claim lapses, claimed_at + lease, RFC 3339 UTC to the second. */
  expiresAt?: string;
  commit?: string;
  /** Fields a tool wrote in the marker that mdclaim does not place (an id, a worktree path), as written; only when there are some. */
  fields?: string[];
  reason?: string;
  /** How many times the task was claimed, when its line records it (` // Attempts: N`); a line without it has had none, or the one claim its marker shows. */
  attempts?: number;
  /** A task given back for a retry: no claim takes it before this time, RFC 3339 UTC to the second. */
  notBefore?: string;
  section?: string;
  tags: string[];
  /** The paths its line declares it writes (`{writes: a, b}`), normalised; only when it declares some. */
  writes?: string[];
  /** The paths its line declares it reads (`{reads: c}`), normalised; only when it declares some. */
  reads?: string[];
  /** The path locks its holder took, from the lock lines under it; only when there are some. */
  locks?: PathLock[];
}

export const FAILED_SEP = ' // Failed:';

/**
 * Byte range of the task's text: after the marker and its blanks, before
 * trailing whitespace, for a failed task before ` // Failed:`, and before
 * the attempts field (see attempts.ts).
 */
export function textRange(src: ByteString, t: TaskLine): [number, number] {
  return textBetween(src, t.marker.status, t.marker.end, t.end);
}

/** textRange of a line ending at `end` whose marker, of status `status`, ends at `markerEnd`. */
export function textBetween(src: ByteString, status: Status, markerEnd: number, end: number): [number, number] {
  const r = textAndTries(src, status, markerEnd, end);
  return [r.start, r.end];
}

/** The text's range, and the attempts field after it with the offset where that field ends (the text's end when there is none). */
export function textAndTries(src: ByteString, status: Status, markerEnd: number, end: number): { start: number; end: number; tries: Tries | null; triesEnd: number } {
  let s = markerEnd;
  let e = end;
  if (status === 'failed') {
    const at = src.indexOf(FAILED_SEP, s);
    if (at >= 0 && at < e) e = at;
  }
  while (s < e && isBlank(src.charCodeAt(s))) s++;
  while (e > s && isBlank(src.charCodeAt(e - 1))) e--;
  const tries = triesAt(src, s, e);
  if (tries === null) return { start: s, end: e, tries, triesEnd: e };
  const triesEnd = e;
  e = tries.start;
  while (e > s && isBlank(src.charCodeAt(e - 1))) e--;
  return { start: s, end: e, tries, triesEnd };
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** A failed line's reason: what follows ` // Failed:`, trimmed. */
function reasonOf(src: ByteString, t: TaskLine): string | undefined {
  const at = src.indexOf(FAILED_SEP, t.marker.end);
  if (at < 0 || at >= t.end) return undefined;
  return utf8(src, at + FAILED_SEP.length, t.end).trim();
}

// `{opus}` or `{sonnet, adw_plan_implement_update_task}`: a brace group of tag words, outside code spans.
const TAG_GROUP = /\{\s*([\w.:/@+-]+(?:\s*,\s*[\w.:/@+-]+)*)\s*\}/g;

/** The tags of a task's text: every brace group of tag words, but not a `{writes: …}`, `{reads: …}` or `{after: …}` declaration (see declared.ts, after.ts). */
export function parseTags(text: string): string[] {
  if (!text.includes('{')) return [];
  let prose = withoutCode(text);
  if (mayDeclare(prose)) prose = prose.replace(DECLARATION, ' ');
  if (mayWait(prose)) prose = prose.replace(AFTER, ' ');
  const tags: string[] = [];
  for (const m of prose.matchAll(TAG_GROUP)) {
    for (const tag of m[1]!.split(',')) {
      const t = tag.trim();
      if (!tags.includes(t)) tags.push(t);
    }
  }
  return tags;
}

/** What a line says of its task, field by field: all of Task that the line alone decides but for tags, expiry and declared paths. */
export type LineFields = Pick<Task, 'status' | 'text' | 'by' | 'claimedAt' | 'lease' | 'commit' | 'reason' | 'attempts' | 'notBefore'>;

/**
 * The fields of a scanned line as toTask reads them, and nothing more: what
 * a check that the line reads as meant compares (see checkReading), without
 * the tags, expiry, declared paths and lock lines it does not.
 */
export function lineFields(src: ByteString, t: TaskLine): LineFields {
  const m = t.marker;
  const { start: s, end: e, tries } = textAndTries(src, m.status, m.end, t.end);
  const f: LineFields = { status: m.status, text: utf8(src, s, e) };
  if (m.by !== undefined) f.by = m.by;
  if (m.claimedAt !== undefined) (f.claimedAt = m.claimedAt), (f.lease = leaseOf(m));
  if (m.commit !== undefined) f.commit = m.commit;
  const reason = m.status === 'failed' ? reasonOf(src, t) : undefined;
  if (reason !== undefined) f.reason = reason;
  if (tries !== null) {
    f.attempts = tries.attempts;
    if (tries.notBefore !== undefined) f.notBefore = tries.notBefore;
  }
  return f;
}

/** Build the public view of a scanned line; `id` is filled in by the caller that knows the whole board. */
export function toTask(src: ByteString, t: TaskLine, id: string): Task {
  const f = lineFields(src, t);
  const task: Task = { id, text: f.text, line: t.line, status: f.status, tags: parseTags(f.text) };
  if (f.by !== undefined) task.by = f.by;
  if (f.claimedAt !== undefined) {
    task.claimedAt = f.claimedAt;
    task.lease = f.lease!;
    const at = expiryOf(t.marker);
    if (at !== undefined) task.expiresAt = at;
  }
  if (f.commit !== undefined) task.commit = f.commit;
  if (t.marker.fields !== undefined) task.fields = t.marker.fields;
  if (f.reason !== undefined) task.reason = f.reason;
  if (f.attempts !== undefined) {
    task.attempts = f.attempts;
    if (f.notBefore !== undefined) task.notBefore = f.notBefore;
  }
  if (t.section !== undefined) task.section = t.section;
  if (mayDeclare(f.text)) {
    const d = parseDeclared(f.text);
    if (d.writes.length > 0) task.writes = d.writes;
    if (d.reads.length > 0) task.reads = d.reads;
  }
  const locks = locksAfter(src, t.end);
  if (locks.length > 0) {
    task.locks = locks.map(({ mode, path, since: written }) => {
      const since = lockSince(written);
      return since === undefined ? { mode, path } : { mode, path, since };
    });
  }
  return task;
}

/**
 * `t` with the fields of `set` and without those named in `drop`, keys in
 * the order `{ ...t, ...set }` and then deleting would leave (a kept key
 * where it was, a new one at the end), but built without `delete`: an object
 * that has had a key deleted stays slow to read for the rest of its life.
 */
export function reshaped(t: Task, set: Partial<Task>, drop: readonly (keyof Task)[] = []): Task {
  const out: Partial<Record<keyof Task, unknown>> = {};
  for (const k in t) {
    const key = k as keyof Task;
    if (!drop.includes(key)) out[key] = t[key];
  }
  for (const k in set) {
    const key = k as keyof Task;
    if (!drop.includes(key)) out[key] = set[key];
  }
  return out as Task;
}

/** claimedAt, lease and expiresAt of a timed claim. */
export function claimTimes(m: Pick<Marker, 'claimedAt' | 'leaseMs'>): Pick<Task, 'claimedAt' | 'lease' | 'expiresAt'> {
  const out: Pick<Task, 'claimedAt' | 'lease' | 'expiresAt'> = { claimedAt: m.claimedAt!, lease: leaseOf(m) };
  const at = expiryOf(m);
  if (at !== undefined) out.expiresAt = at;
  return out;
}

/** A timed claim's lease, in normal form. */
function leaseOf(m: Pick<Marker, 'leaseMs'>): string {
  return formatDuration(m.leaseMs ?? DEFAULT_LEASE_MS);
}

/** When a timed claim lapses; none when its time names no instant. */
function expiryOf(m: Pick<Marker, 'claimedAt' | 'leaseMs'>): string | undefined {
  // A hand-written time can match RFC 3339's shape and still name no instant (month 13, 2026-02-30).
  const claimed = claimInstant(m.claimedAt!);
  const at = claimed === null ? NaN : claimed + (m.leaseMs ?? DEFAULT_LEASE_MS);
  return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? formatClaimedAt(at) : undefined;
}
