import type { ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { locksAfter } from '../format/locks.js';
import { reshaped, type Task } from '../format/task.js';
import type { Seen } from './walk.js';

/** How one task must read after a change: its new status and fields, and the same text. */
export interface Changed {
  /** The task as it read before. */
  seen: Seen;
  /** What it must read as after: every field the new marker sets, and the text (and reason) the line then carries. */
  want: Pick<Task, 'status' | 'by' | 'claimedAt' | 'lease' | 'commit' | 'text' | 'reason' | 'attempts' | 'notBefore' | 'locks'>;
}

/** An added task: where it must stand and what it must read as. */
export interface Added {
  line: number;
  text: string;
}

/**
 * What a transition decided: the edits, what to return (or, as `later`, how
 * to build it once the lock is let go: the returned task needs nothing the
 * lock guards, so building it need not keep others waiting), and what the
 * edits are meant to do to the board's reading (checked before anything is
 * written, see checkReading).
 */
export type Plan<T> = PlanOf & ({ result: T } | { later: () => T });

interface PlanOf {
  edits: Edit[];
  changes: Changed[];
  added?: Added;
}

/** What a plan returns (a plan is the change FileStore.update makes). */
export { resultOf } from '../storage/file-store.js';

/**
 * Rewrite one task's marker: the common transition. `more` are edits of the
 * same task's lock lines (see dropLocks), made in the same write.
 */
export function markerPlan(seen: Seen, marker: string, result: Task, more: readonly Edit[] = []): Plan<Task> {
  return { edits: [markerEdit(seen, marker), ...more], result, changes: [{ seen, want: wantOf(result) }] };
}

/** The edit that puts `marker` in place of the task's marker. */
export function markerEdit(seen: Seen, marker: string): Edit {
  return { start: seen.t.markerStart, end: seen.t.marker.end, bytes: marker };
}

/** What the task must read as after the change: its fields, its text, and its locks (none when `t` has none). */
export function wantOf(t: Task): Changed['want'] {
  const want: Changed['want'] = { status: t.status, text: t.text, locks: t.locks ?? [] };
  for (const k of ['by', 'claimedAt', 'lease', 'commit', 'reason', 'notBefore'] as const) if (t[k] !== undefined) want[k] = t[k];
  if (t.attempts !== undefined) want.attempts = t.attempts;
  return want;
}

/**
 * The edit that puts `marker` in place of the task's marker and `tries` (an
 * attempts field as renderTries writes it, or '') in place of the line's
 * attempts field: the marker alone when the field stays as it is, else one
 * edit from the marker to the field's end, so a short line is still one write.
 */
export function markerAndTriesEdit(src: ByteString, seen: Seen, marker: string, tries: string): Edit {
  // From the text's end: blanks before an old field go with it, as a PostgreSQL board rewrites it.
  const from = seen.text[1];
  if (src.slice(from, seen.triesEnd) === tries) return markerEdit(seen, marker);
  return { start: seen.t.markerStart, end: seen.triesEnd, bytes: marker + src.slice(seen.t.marker.end, from) + tries };
}

/** The open marker a claim on this line gives back: `[]` for a line that was open as `[]` (see Marker.bare), else `[ ]`. */
export function openMarker(seen: Seen): string {
  return seen.t.marker.bare === true ? '[]' : '[ ]';
}

/** The attempts fields the line has now, for a change that keeps them. */
export function keptTries(seen: Seen, status?: Task['status']): Pick<Task, 'attempts' | 'notBefore'> {
  if (seen.tries === null) return {};
  // A new claim keeps the count and ends the wait.
  if (status === 'claimed') return { attempts: seen.tries.attempts };
  return seen.tries.notBefore === undefined ? { attempts: seen.tries.attempts } : { attempts: seen.tries.attempts, notBefore: seen.tries.notBefore };
}

/** `t` with the attempts fields the line will record in place of those it had. */
export function withTries(t: Task, fields: Pick<Task, 'attempts' | 'notBefore'>): Task {
  const out = reshaped(t, {}, ['attempts', 'notBefore']);
  if (fields.attempts !== undefined) out.attempts = fields.attempts;
  if (fields.notBefore !== undefined) out.notBefore = fields.notBefore;
  return out;
}

/**
 * The edit that removes a task's lock lines (none when it has none): from the
 * end of the task's line to the end of its last lock line, so the line
 * ending that follows, or its absence at the end of the file, is the task's again.
 */
export function dropLocks(src: ByteString, seen: Seen): Edit[] {
  const locks = locksAfter(src, seen.t.end);
  return locks.length === 0 ? [] : [{ start: seen.t.end, end: locks.at(-1)!.end, bytes: '' }];
}
