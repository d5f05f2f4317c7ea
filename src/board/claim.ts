import { MdclaimError } from '../errors.js';
import { bytes, utf8, type ByteString } from '../format/bytes.js';
import type { Change } from '../storage/file-store.js';
import { formatClaimedAt, renderMarker } from '../format/marker.js';
import type { TaskScanner } from '../format/scan.js';
import { parseTags, textBetween, toTask, type Task } from '../format/task.js';
import { cutoff, isClaimable, isLapsedAt } from './claimable.js';
import { notClaimable } from './conflict.js';
import { findById, idOf, seenAt, walkLines, type Seen } from './walk.js';

export interface ClaimArgs {
  by: string;
  leaseMs: number;
  now: number;
}

export interface NextFilter {
  tags?: readonly string[];
  section?: string;
}

/** Rewrite one task's marker as claimed by `by` now. */
function claimChange(src: ByteString, seen: Seen, id: string, args: ClaimArgs): Change<Task> {
  const claimedAt = formatClaimedAt(args.now);
  const marker = renderMarker({ status: 'claimed', by: args.by, claimedAt });
  const before = toTask(src, seen.t, id);
  const task: Task = { ...before, status: 'claimed', by: args.by, claimedAt };
  delete task.commit;
  delete task.reason;
  return { edits: [{ start: seen.t.markerStart, end: seen.t.marker.end, bytes: bytes(marker) }], result: task };
}

/** Does a section heading name `wanted`, as its text or as an ADW `Git Worktree <name>`? */
export function sectionMatches(section: string | undefined, wanted: string): boolean {
  if (section === undefined) return false;
  if (section === wanted) return true;
  const worktree = /^Git Worktree\s+(.+)$/.exec(section);
  return worktree !== null && worktree[1]!.trim() === wanted;
}

/** Claim the first claimable task in file order that matches the filter; null when there is none. */
export function claimNext(src: ByteString, filter: NextFilter, args: ClaimArgs): Change<Task | null> {
  const tags = filter.tags ?? [];
  const limit = cutoff(args.now, args.leaseMs);
  let allDone = false;
  const picked = walkLines(src, (s, aboveAllDone) => {
    // A claim is claimable when it has lapsed: the claim mdclaim writes is judged in place, any
    // other by its fields; every other line by its status alone.
    const claimable =
      s.claimTime >= 0 ? isLapsedAt(src, s.claimTime, limit) : isClaimable(s.status === 'claimed' ? s.marker() : s, aboveAllDone, limit);
    allDone = aboveAllDone;
    return (
      claimable &&
      (filter.section === undefined || sectionMatches(s.section, filter.section)) &&
      (tags.length === 0 || hasTags(src, s, tags))
    );
  });
  if (!picked) return { edits: [], result: null };
  const seen = seenAt(src, picked, allDone);
  return claimChange(src, seen, idOf(src, seen.text, seen.t.line), args);
}

function hasTags(src: ByteString, s: TaskScanner, tags: readonly string[]): boolean {
  const [from, to] = textBetween(src, s.status, s.markerEnd, s.end);
  const have = parseTags(utf8(src, from, to));
  return tags.every((t) => have.includes(t));
}

/** Claim one task by id: it must be claimable, or already held by the same claimant (a renewal). */
export function claimById(src: ByteString, id: string, args: ClaimArgs): Change<Task> {
  const found = findById(src, id);
  if (!found) throw new MdclaimError('NOT_FOUND', `no task with id ${id}`);
  const { seen, task } = found;
  const mine = task.status === 'claimed' && task.by === args.by;
  if (!mine && !isClaimable(seen.t.marker, seen.aboveAllDone, cutoff(args.now, args.leaseMs))) throw notClaimable(task);
  return claimChange(src, seen, task.id, args);
}
