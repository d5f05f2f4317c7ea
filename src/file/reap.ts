import type { ByteString } from '../format/bytes.js';
import { textBetween, toTask, type Task } from '../format/task.js';
import { atBudget, countsAttempts, parkEdit } from '../board/park.js';
import { attemptsOf, recordedTries, renderTries } from '../format/attempts.js';
import { cutoff, isLapsed, isOlderThan } from '../board/claimable.js';
import { dropLocks, markerAndTriesEdit, openMarker, type Changed, type Plan } from '../board/plan.js';
import { KeyCount, seenAt, walkLines, type Seen } from '../board/walk.js';

export interface ReapArgs {
  /** The operator's override: also reopen claims at least this old, whatever their own lease. */
  ttlMs?: number;
  now: number;
  dryRun: boolean;
  /** Also revert ADW claims with no timestamp (`[🟡, id]`), whose age is unknown. */
  includeUntimed: boolean;
  /** Park instead of reopening a claim whose task has had this many attempts: `[❌]`, with a reason that says so. */
  maxAttempts?: number;
}

/**
 * Revert every claim past its own lease (and, with a TTL, every claim that
 * old) to open (`[]` again for a line that was `[]`, see openMarker). It runs
 * under the same exclusive lock as claims, on the bytes
 * just read, so a claim renewed or re-taken a moment earlier is seen as fresh
 * and left alone.
 */
export function reap(src: ByteString, args: ReapArgs): Plan<Task[]> {
  const keys = new KeyCount();
  const stale: Seen[] = [];
  const now = cutoff(args.now);
  const ttl = args.ttlMs === undefined ? null : cutoff(args.now, args.ttlMs);
  // Every task counts towards telling keys apart; only claims need their marker read.
  walkLines(src, (s, aboveAllDone) => {
    const [from, to] = textBetween(src, s.status, s.markerEnd, s.end);
    keys.addText(src, from, to);
    if (s.status !== 'claimed') return;
    const m = s.marker();
    if (isLapsed(m, now) || (ttl !== null && isOlderThan(m, ttl)) || (args.includeUntimed && m.claimedAt === undefined)) stale.push(seenAt(src, s, aboveAllDone));
  });
  const reaped = stale.map((s) => toTask(src, s.t, keys.idOf(src, s)));
  if (args.dryRun) return { edits: [], result: reaped, changes: [] };
  const changes: Changed[] = [];
  // A reopened task's path locks leave with its claim, in the same write; its attempts stay counted.
  const edits = stale.flatMap((s, i) => {
    const text = reaped[i]!.text;
    const attempts = attemptsOf('claimed', s.tries);
    if (atBudget(s, args.maxAttempts)) {
      const park = parkEdit(src, s);
      changes.push({ seen: s, want: park.want(text) });
      return [park.edit, ...dropLocks(src, s)];
    }
    // The lapsed claim stays counted where the line counts, or a budget asks for it.
    const counted = countsAttempts(s, args.maxAttempts) ? attempts : 0;
    changes.push({ seen: s, want: { status: 'open', text, locks: [], ...recordedTries('open', counted) } });
    return [markerAndTriesEdit(src, s, openMarker(s), renderTries('open', counted)), ...dropLocks(src, s)];
  });
  return { edits, result: reaped, changes };
}

