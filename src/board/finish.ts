import { MdclaimError } from '../errors.js';
import { checkCommit } from './checks.js';
import { bytes, type ByteString } from '../format/bytes.js';
import { formatClaimedAt, renderMarker } from '../format/marker.js';
import { FAILED_SEP, type Task } from '../format/task.js';
import type { Change } from '../storage/file-store.js';
import { notHolder } from './conflict.js';
import { findById, type Seen } from './walk.js';

// The transitions only the holder may make: heartbeat, done, fail, release.

function holderOnly(src: ByteString, id: string, by: string): { seen: Seen; task: Task } {
  const found = findById(src, id);
  if (!found) throw new MdclaimError('NOT_FOUND', `no task with id ${id}`);
  if (found.task.status !== 'claimed' || found.task.by !== by) throw notHolder(found.task, by);
  return found;
}

function withMarker(seen: Seen, marker: string, result: Task): Change<Task> {
  return { edits: [{ start: seen.t.markerStart, end: seen.t.marker.end, bytes: bytes(marker) }], result };
}

/** Renew the claim's timestamp: a live holder keeps its lease. */
export function heartbeat(src: ByteString, id: string, by: string, now: number): Change<Task> {
  const { seen, task } = holderOnly(src, id, by);
  const claimedAt = formatClaimedAt(now);
  return withMarker(seen, renderMarker({ status: 'claimed', by, claimedAt }), { ...task, claimedAt });
}

export function done(src: ByteString, id: string, by: string, commit?: string): Change<Task> {
  checkCommit(commit);
  const { seen, task } = holderOnly(src, id, by);
  const result: Task = { ...task, status: 'done', by };
  delete result.claimedAt;
  if (commit !== undefined) result.commit = commit;
  return withMarker(seen, renderMarker({ status: 'done', by, ...(commit === undefined ? {} : { commit }) }), result);
}

/** A reason stays on its line: line breaks fold into spaces. */
export function foldReason(reason: string): string {
  return reason.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ').trim();
}

export function fail(src: ByteString, id: string, by: string, reason?: string): Change<Task> {
  const { seen, task } = holderOnly(src, id, by);
  const folded = reason === undefined ? '' : foldReason(reason);
  const result: Task = { ...task, status: 'failed', by };
  delete result.claimedAt;
  // One edit from the marker to the end of the text, so a short line can still be written in place.
  const [, textEnd] = seen.text;
  let bytesOut = bytes(renderMarker({ status: 'failed', by })) + src.slice(seen.t.marker.end, textEnd);
  if (folded !== '') {
    bytesOut += bytes(`${FAILED_SEP} ${folded}`);
    result.reason = folded;
  }
  return { edits: [{ start: seen.t.markerStart, end: textEnd, bytes: bytesOut }], result };
}

/** Give the task back: `[ ]`, so claim + release restores a `[ ]` line byte for byte. */
export function release(src: ByteString, id: string, by: string): Change<Task> {
  const { seen, task } = holderOnly(src, id, by);
  const result: Task = { ...task, status: 'open' };
  delete result.by;
  delete result.claimedAt;
  return withMarker(seen, renderMarker({ status: 'open' }), result);
}
