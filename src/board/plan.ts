import type { Edit } from '../format/edit.js';
import type { Task } from '../format/task.js';
import type { Seen } from './walk.js';

/** How one task must read after a change: its new status and fields, and the same text. */
export interface Changed {
  /** The task as it read before. */
  seen: Seen;
  /** What it must read as after: every field the new marker sets, and the text (and reason) the line then carries. */
  want: Pick<Task, 'status' | 'by' | 'claimedAt' | 'lease' | 'commit' | 'text' | 'reason'>;
}

/** An added task: where it must stand and what it must read as. */
export interface Added {
  line: number;
  text: string;
}

/**
 * What a transition decided: the edits, what to return, and what the edits
 * are meant to do to the board's reading (checked before anything is written,
 * see checkReading).
 */
export interface Plan<T> {
  edits: Edit[];
  result: T;
  changes: Changed[];
  added?: Added;
}

/** Rewrite one task's marker: the common transition. */
export function markerPlan(seen: Seen, marker: string, result: Task): Plan<Task> {
  return { edits: [{ start: seen.t.markerStart, end: seen.t.marker.end, bytes: marker }], result, changes: [{ seen, want: wantOf(result) }] };
}

export function wantOf(t: Task): Changed['want'] {
  const want: Changed['want'] = { status: t.status, text: t.text };
  for (const k of ['by', 'claimedAt', 'lease', 'commit', 'reason'] as const) if (t[k] !== undefined) want[k] = t[k];
  return want;
}
