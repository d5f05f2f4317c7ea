import { usage } from '../errors.js';
import { noTask } from '../board/resolve-id.js';
import { bytes, type ByteString } from '../format/bytes.js';
import { formatClaimedAt, renderMarker } from '../format/marker.js';
import { claimTimes, FAILED_SEP, reshaped, type Task } from '../format/task.js';
import { checkCommit } from '../board/checks.js';
import { ambiguousKey } from './claim.js';
import { cutoff } from '../board/claimable.js';
import { refuseRetaken } from './held.js';
import { foldReason } from '../board/requests.js';
import { notHolder } from '../board/conflict.js';
import { dropLocks, markerAndTriesEdit, markerPlan, openMarker, wantOf, withTries, type Plan } from '../board/plan.js';
import { attemptsOf, recordedTries, renderTries } from '../format/attempts.js';
import { lookup, sameText, taskOf, type Seen } from '../board/walk.js';

// The transitions only the holder may make: heartbeat, done, fail, release.
// Done, fail and release end the claim, so its path locks leave in the same write.

/** Who asks: the claimant, and (to fence the write to one claim) the claim time it was given. */
export interface Holder {
  by: string;
  claimedAt?: string;
}

/**
 * The line the caller holds among those answering to `id`: claimed by `by`,
 * and at exactly `claimedAt` when given (so a write meant for one claim never
 * lands on a newer claim, even one by the same claimant). Among exact
 * duplicates any held one will do; a key on several of the caller's own
 * lines with different texts names none of them.
 */
export function held(src: ByteString, id: string, who: Holder): { seen: Seen; task: Task } {
  const mine = (s: Seen) => s.t.marker.status === 'claimed' && s.t.marker.by === who.by && (who.claimedAt === undefined || s.t.marker.claimedAt === who.claimedAt);
  const { found } = lookup(src, id, mine);
  if (found.length === 0) throw noTask(id);
  const ours = found.filter(mine);
  if (ours.length === 0) {
    // Name the claim that is there instead: the caller's other claim, else anyone's, else the first line.
    const shown = found.find((s) => s.t.marker.by === who.by && s.t.marker.status === 'claimed') ?? found.find((s) => s.t.marker.status === 'claimed') ?? found[0]!;
    throw notHolder(taskOf(src, shown), who);
  }
  if (ours.length > 1 && !sameText(src, ours)) throw ambiguousKey(src, id, ours, `tasks claimed by ${who.by}`);
  return { seen: ours[0]!, task: taskOf(src, ours[0]!) };
}

/** Renew the claim's timestamp; the claim keeps its own lease. */
export function heartbeat(src: ByteString, id: string, who: Holder, now: number): Plan<Task> {
  const { seen, task } = held(src, id, who);
  refuseRetaken(src, seen, cutoff(now), task.id);
  const marker = { status: 'claimed' as const, by: who.by, claimedAt: formatClaimedAt(now), bare: seen.t.marker.bare === true, ...(seen.t.marker.leaseMs === undefined ? {} : { leaseMs: seen.t.marker.leaseMs }) };
  return markerPlan(seen, bytes(renderMarker(marker)), reshaped(task, claimTimes(marker), ['fields']));
}

function finished(task: Task, status: 'done' | 'failed' | 'open'): Task {
  return reshaped(task, { status }, status === 'open' ? ['claimedAt', 'lease', 'expiresAt', 'locks', 'by', 'fields'] : ['claimedAt', 'lease', 'expiresAt', 'locks', 'fields']);
}

export function done(src: ByteString, id: string, who: Holder, commit?: string): Plan<Task> {
  checkCommit(commit);
  const { seen, task } = held(src, id, who);
  const result = finished(task, 'done');
  if (commit !== undefined) result.commit = commit;
  return markerPlan(seen, bytes(renderMarker({ status: 'done', by: who.by, ...(commit === undefined ? {} : { commit }) })), result, dropLocks(src, seen));
}

export { foldReason } from '../board/requests.js';

export function fail(src: ByteString, id: string, who: Holder, reason?: string): Plan<Task> {
  if (reason !== undefined && typeof reason !== 'string') throw usage(`reason must be a string, got ${typeof reason}`);
  const { seen, task } = held(src, id, who);
  const folded = reason === undefined ? '' : foldReason(reason);
  const result = finished(task, 'failed');
  // One edit from the marker to the end of the text (and its attempts field), so a short line can still be written in place.
  const textEnd = seen.triesEnd;
  let bytesOut = bytes(renderMarker({ status: 'failed', by: who.by })) + src.slice(seen.t.marker.end, textEnd);
  if (folded !== '') {
    bytesOut += bytes(`${FAILED_SEP} ${folded}`);
    result.reason = folded;
  }
  return { edits: [{ start: seen.t.markerStart, end: textEnd, bytes: bytesOut }, ...dropLocks(src, seen)], result, changes: [{ seen, want: wantOf(result) }] };
}

/**
 * Give the task back: open as it was (see openMarker), and the attempt its
 * claim counted with it (a task handed back unworked was not tried), so
 * claim + release restores the line byte for byte (its locks go too).
 */
export function release(src: ByteString, id: string, who: Holder): Plan<Task> {
  const { seen, task } = held(src, id, who);
  return giveBack(src, seen, task, attemptsOf('claimed', seen.tries) - 1);
}

/**
 * Give the task back for a retry: `[ ]`, the attempt kept, and no claim of
 * anyone's takes it before `notBefore` (written on its line).
 */
export function retry(src: ByteString, id: string, who: Holder, notBefore: string): Plan<Task> {
  const { seen, task } = held(src, id, who);
  return giveBack(src, seen, task, attemptsOf('claimed', seen.tries), notBefore);
}

function giveBack(src: ByteString, seen: Seen, task: Task, attempts: number, notBefore?: string): Plan<Task> {
  const open = openMarker(seen);
  const result = withTries(finished(task, 'open'), recordedTries('open', attempts, notBefore));
  const edit = markerAndTriesEdit(src, seen, open, renderTries('open', attempts, notBefore));
  return { edits: [edit, ...dropLocks(src, seen)], result, changes: [{ seen, want: wantOf(result) }] };
}
