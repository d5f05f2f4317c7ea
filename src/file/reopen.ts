import { noTask } from '../board/resolve-id.js';
import { bytes, type ByteString } from '../format/bytes.js';
import { renderMarker } from '../format/marker.js';
import { reshaped, type Task } from '../format/task.js';
import { ambiguousKey } from './claim.js';
import { notReopenable } from '../board/conflict.js';
import { markerAndTriesEdit, wantOf, type Plan } from '../board/plan.js';
import { lookup, taskOf } from '../board/walk.js';

/**
 * Put a finished task (done or failed) back to `[ ]`: the marker goes, and
 * with it the commit it names; a failed line's ` // Failed: reason` goes too,
 * so the line reads as it did before it was claimed. A claim is its holder's
 * to release (or the reaper's, once lapsed), never reopened from outside.
 */
export function reopen(src: ByteString, id: string): Plan<Task> {
  const finished = (t: Task['status']) => t === 'done' || t === 'failed';
  const { form, found } = lookup(src, id, (s) => finished(s.t.marker.status));
  if (found.length === 0) throw noTask(id);
  if (form === 'key' && found.length > 1) throw ambiguousKey(src, id, found);
  const seen = found.find((s) => finished(s.t.marker.status));
  if (!seen) throw notReopenable(taskOf(src, found[0]!));
  const task = taskOf(src, seen);
  // A person's decision to try again: the count of attempts starts over.
  const result = reshaped(task, { status: 'open' }, ['by', 'commit', 'fields', 'reason', 'claimedAt', 'lease', 'expiresAt', 'attempts', 'notBefore']);
  const open = bytes(renderMarker({ status: 'open' }));
  // A failure's reason follows its text (and attempts): one edit from the marker to the line's end drops them.
  const edit = seen.t.marker.status === 'failed'
    ? { start: seen.t.markerStart, end: seen.t.end, bytes: open + src.slice(seen.t.marker.end, seen.text[1]) }
    : markerAndTriesEdit(src, seen, open, '');
  return { edits: [edit], result, changes: [{ seen, want: wantOf(result) }] };
}
