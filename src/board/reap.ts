import type { ByteString } from '../format/bytes.js';
import { bytes } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { baseId, IdAssigner, withOrdinal } from '../format/id.js';
import { renderMarker } from '../format/marker.js';
import { toTask, type Task } from '../format/task.js';
import type { Change } from '../storage/file-store.js';
import { cutoff, isLapsed } from './claimable.js';
import { walk } from './walk.js';

export interface ReapArgs {
  ttlMs: number;
  now: number;
  dryRun: boolean;
  /** Also revert ADW claims with no timestamp (`[🟡, id]`), whose age is unknown. */
  includeUntimed: boolean;
}

/**
 * Revert every claim older than the TTL to `[ ]`. It runs under the same
 * exclusive lock as claims, on the bytes just read, so a claim renewed or
 * re-taken a moment earlier is seen as fresh and left alone.
 */
export function reap(src: ByteString, args: ReapArgs): Change<Task[]> {
  const ids = new IdAssigner();
  const reaped: Task[] = [];
  const edits: Edit[] = [];
  const open = bytes(renderMarker({ status: 'open' }));
  const limit = cutoff(args.now, args.ttlMs);
  walk(src, (s) => {
    // Every task counts towards numbering duplicates; only the stale need their id.
    const n = ids.ordinal(src, s.text[0], s.text[1]);
    const m = s.t.marker;
    const stale = isLapsed(m, limit) || (args.includeUntimed && m.status === 'claimed' && m.claimedAt === undefined);
    if (!stale) return;
    reaped.push(toTask(src, s.t, withOrdinal(baseId(src, s.text[0], s.text[1]), n)));
    edits.push({ start: s.t.markerStart, end: m.end, bytes: open });
  });
  return { edits: args.dryRun ? [] : edits, result: reaped };
}
