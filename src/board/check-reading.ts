import { MdclaimError } from '../errors.js';
import type { ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { locksAfter } from '../format/locks.js';
import { parseMarker } from '../format/marker.js';
import type { TaskLine } from '../format/scan.js';
import { lineFields, toTask, type Task } from '../format/task.js';
import type { Changed, Plan } from './plan.js';
import { walk } from './walk.js';

/**
 * Refuse a change whose bytes would not read as meant: exactly the planned
 * tasks changed, each to what was planned, every other task as it was, and an
 * added task a task of its own. Every transition goes through here before
 * anything is written; a refusal is a usage error and the file stays as it is.
 *
 * A marker-for-marker swap whose old and new bytes hold only letters, digits,
 * `,._:@/+-`, spaces and non-ASCII (what mdclaim writes, and what boards
 * mostly hold) re-reads only the changed lines: the line still starts with
 * `[`, so it starts no block, and none of those bytes can end a link title or
 * destination or make a label, so no line's reading moves (nor the lock
 * lines under it, which it does not touch). Anything else (a reason appended,
 * a line added, lock lines added or removed, a hand-written marker with a
 * quote in it) re-reads the whole board and compares it with the old reading:
 * every task's fields, section and path locks (the lock lines under it).
 */
export function checkReading<T>(src: ByteString, plan: Plan<T>): Plan<T> {
  if (plan.edits.length === 0) return plan;
  const edits = [...plan.edits].sort((a, b) => a.start - b.start);
  if (plan.added === undefined && markerSwaps(src, plan.changes, edits)) checkLines(src, plan.changes, edits);
  else checkWhole(src, applyEdits(src, edits), plan, edits);
  return plan;
}

/** The bytes after the edits (a latin1 byte string, as read). */
export function applyEdits(src: ByteString, sorted: readonly Edit[]): ByteString {
  let out = '';
  let from = 0;
  for (const e of sorted) {
    out += src.slice(from, e.start) + e.bytes;
    from = e.end;
  }
  return out + src.slice(from);
}

function markerSwaps(src: ByteString, changes: readonly Changed[], edits: readonly Edit[]): boolean {
  if (changes.length !== edits.length) return false;
  const byStart = new Map(changes.map((c) => [c.seen.t.markerStart, c]));
  return edits.every((e) => {
    const c = byStart.get(e.start);
    return c !== undefined && e.end === c.seen.t.marker.end && inert(src, e.start + 1, e.end - 1) && inert(e.bytes, 1, e.bytes.length - 1) && e.bytes.charCodeAt(0) === 0x5b;
  });
}

function inert(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    const ok = c >= 0x80 || (c >= 0x30 && c <= 0x3a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x20 || c === 0x2c || c === 0x2e || c === 0x5f || c === 0x40 || c === 0x2f || c === 0x2b || c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

/** Re-read each swapped marker's line as it will be (built alone: the rest of the file is not copied). */
function checkLines(src: ByteString, changes: readonly Changed[], sorted: readonly Edit[]): void {
  const byStart = new Map(changes.map((c) => [c.seen.t.markerStart, c]));
  for (const e of sorted) {
    const c = byStart.get(e.start)!;
    const old = c.seen.t;
    const text = src.slice(old.start, e.start) + e.bytes + src.slice(e.end, old.end);
    const markerStart = e.start - old.start;
    const marker = parseMarker(text, markerStart);
    if (marker === null || marker.end !== markerStart + e.bytes.length) refuse(old.line, 'its new marker would not read as one');
    const line: TaskLine = { ...old, start: 0, end: text.length, markerStart, marker };
    // The lines under it are not edited, so its locks are what they were. Only the fields compared are read.
    const got: Fields = { ...lineFields(text, line), locks: locksAfter(src, old.end).map(({ mode, path, since }) => ({ mode, path, ...(since === undefined ? {} : { since }) })) };
    compare(old.line, got, { ...c.want, locks: c.want.locks ?? got.locks });
  }
}

type Fields = Pick<Task, 'status' | 'by' | 'claimedAt' | 'lease' | 'commit' | 'text' | 'reason' | 'attempts' | 'notBefore' | 'locks'>;
const KEYS = ['status', 'by', 'claimedAt', 'lease', 'commit', 'text', 'reason', 'attempts', 'notBefore'] as const;

function fields(t: Task): Fields {
  const f: Fields = { status: t.status, text: t.text, locks: t.locks ?? [] };
  for (const k of KEYS) if (t[k] !== undefined) (f as Record<string, unknown>)[k] = t[k];
  return f;
}

/** A task's locks as one comparable string: mode, path and time of each, in order. */
function lockKey(locks: Task['locks']): string {
  return JSON.stringify((locks ?? []).map((l) => [l.mode, l.path, l.since ?? null]));
}

function compare(line: number, got: Fields, want: Fields): void {
  for (const k of KEYS) {
    if (got[k] !== want[k]) refuse(line, `it would read with ${k} ${JSON.stringify(got[k] ?? null)}, not ${JSON.stringify(want[k] ?? null)}`);
  }
  const none = (got.locks?.length ?? 0) === 0 && (want.locks?.length ?? 0) === 0;
  if (!none && lockKey(got.locks) !== lockKey(want.locks)) refuse(line, `its path locks would read as ${lockKey(got.locks)}, not ${lockKey(want.locks)}`);
}

/** Every task of a reading, as a line number and what the task says. */
function reading(src: ByteString): Array<{ line: number; start: number; task: Task; key: string }> {
  const out: Array<{ line: number; start: number; task: Task; key: string }> = [];
  walk(src, (s) => {
    const task = toTask(src, s.t, '');
    out.push({ line: s.t.line, start: s.t.start, task, key: JSON.stringify([fields(task), task.section ?? null]) });
  });
  return out;
}

function checkWhole(src: ByteString, next: ByteString, plan: Plan<unknown>, sorted: readonly Edit[]): void {
  const before = reading(src);
  const after = reading(next);
  const changed = new Map(plan.changes.map((c) => [c.seen.t.line, c]));
  const added = plan.added;
  if (after.length !== before.length + (added ? 1 : 0)) {
    const lost = before.find((b, i) => after[i]?.line !== b.line)?.line ?? before.at(-1)?.line ?? 1;
    refuse(added?.line ?? lost, `the board would read ${after.length} tasks, not ${before.length + (added ? 1 : 0)}`);
  }
  // Each edit moves the lines after it by the line breaks it adds or removes.
  const shifts = sorted.map((e) => ({ end: e.end, by: lineBreaks(e.bytes) - lineBreaks(src.slice(e.start, e.end)) })).filter((x) => x.by !== 0);
  const moved = (start: number) => shifts.reduce((n, x) => (x.end <= start ? n + x.by : n), 0);
  let j = 0;
  for (let i = 0; i < after.length; i++) {
    const a = after[i]!;
    if (added && a.line === added.line) {
      if (a.task.status !== 'open' || a.task.text !== added.text) refuse(a.line, `the new line would read as ${JSON.stringify(a.task.text)} (${a.task.status})`);
      continue;
    }
    const b = before[j++];
    if (b === undefined) refuse(a.line, 'a task would appear that was not added');
    const line = b.line + moved(b.start);
    if (a.line !== line) refuse(b.line, `the task would move to line ${a.line}`);
    const c = changed.get(b.line);
    // A change that says nothing of the task's locks leaves them as they were.
    if (c) compare(b.line, fields(a.task), { ...c.want, locks: c.want.locks ?? b.task.locks ?? [] });
    else if (a.key !== b.key) refuse(b.line, 'another task would read differently');
  }
  if (added && j !== before.length) refuse(added.line, 'the new line would not read as a task of its own');
}

function lineBreaks(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && s.charCodeAt(i + 1) !== 0x0a)) n++;
  }
  return n;
}

/** 1-based line of a byte offset, counting CRLF, CR and LF line endings as the scanner does. */
export function lineAt(src: ByteString, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && src.charCodeAt(i + 1) !== 0x0a)) n++;
  }
  return n;
}

function refuse(line: number, why: string): never {
  throw new MdclaimError('USAGE', `refusing to write line ${line}: ${why}, so the board would not read as meant (nothing was written)`);
}
