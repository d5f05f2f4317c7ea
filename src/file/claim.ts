import { MdclaimError } from '../errors.js';
import { noTask } from '../board/resolve-id.js';
import { bytes, utf8, type ByteString } from '../format/bytes.js';
import { formatDuration } from '../format/duration.js';
import { formatClaimedAt, renderMarker } from '../format/marker.js';
import { settledRun } from '../format/settled-run.js';
import { claimTimes, parseTags, reshaped, textBetween, type Task } from '../format/task.js';
import { blockerButLine, blockerOf, blockingHold, cutoff, nextAnswer, type Blocker, type Cutoff } from '../board/claimable.js';
import { BoardFacts, ScannedCandidate, seenCandidate } from './claimable-line.js';
import { afterTask } from '../board/standing.js';
import type { DepTask } from '../board/after.js';
import { refusal, type RefusedFor } from '../board/conflict.js';
import { declaredOf, holdsOf, mayHoldPaths, type Hold } from './held.js';
import type { Paths } from '../board/path-types.js';
import { passesFilter } from '../format/worktree-section.js';
import { refusedLine } from '../board/unclaimable.js';
import type { PassedOver } from '../board/types.js';
import { atBudget, countsAttempts, parkedTask, withParks } from '../board/park.js';
import { dropLocks, keptTries, markerAndTriesEdit, markerEdit, withTries, type Changed, type Plan } from '../board/plan.js';
import { attemptsOf, MAX_ATTEMPTS, recordedTries, renderTries } from '../format/attempts.js';
import { lookup, seenAt, taskOf, walk, walkLines, type Seen } from '../board/walk.js';
import { ambiguousKey as keyOnSeveral } from '../board/messages.js';

export interface ClaimArgs {
  by: string;
  /** The new claim's own lease, written on its line when it is not the default. */
  leaseMs: number;
  now: number;
  /** The claimer's attempts budget: a lapsed claim whose task has had this many is parked, not taken over; and the claim is counted on its line. */
  maxAttempts?: number;
}

export interface NextFilter {
  tags?: readonly string[];
  section?: string;
}

/**
 * Rewrite one task's marker as claimed by `by` now, with its lease. A new
 * claim starts with no locks: whatever lock lines the line had (a lapsed
 * holder's, taken over) go in the same write. A claim, a takeover too,
 * counts an attempt and ends a retry's wait. The task returned (its id,
 * tags, times) is built once the lock is let go; what the line must read as
 * is known without it.
 */
export function claimChange(src: ByteString, seen: Seen, args: ClaimArgs): Plan<Task> {
  const claimedAt = formatClaimedAt(args.now);
  // A line open as `[]` (or a claim of one, taken over) says so in its claim, for a give-back to write `[]` again.
  const m = seen.t.marker;
  const bare = m.bare === true || (m.status !== 'claimed' && m.end - seen.t.markerStart === 2);
  const marker = { status: 'claimed' as const, by: args.by, claimedAt, leaseMs: args.leaseMs, bare };
  const counting = countsAttempts(seen, args.maxAttempts);
  // Saturates at the most a line records: a count never stops a claim.
  const attempts = Math.min(attemptsOf(seen.t.marker.status, seen.tries) + 1, MAX_ATTEMPTS);
  const tries = counting ? recordedTries('claimed', attempts) : keptTries(seen, 'claimed');
  const newMarker = bytes(renderMarker(marker));
  // A claim ends a retry's wait: a line that waited loses its not-before time.
  const lineEdit = counting || seen.tries?.notBefore !== undefined ? markerAndTriesEdit(src, seen, newMarker, renderTries('claimed', counting ? attempts : attemptsOf('claimed', seen.tries))) : markerEdit(seen, newMarker);
  const edits = [lineEdit, ...dropLocks(src, seen)];
  const text = utf8(src, seen.text[0], seen.text[1]);
  const want: Changed['want'] = { status: 'claimed', text, by: args.by, claimedAt, lease: formatDuration(args.leaseMs), ...tries, locks: [] };
  const later = () => withTries(reshaped(taskOf(src, seen), { status: 'claimed', by: args.by, ...claimTimes(marker) }, ['commit', 'fields', 'reason', 'locks']), tries);
  return { edits, later, changes: [{ seen, want }] };
}

/**
 * Claim the first claimable task in file order that matches the filter; null
 * when there is none. A task its own line keeps from being claimed (see
 * blockerOf's first case) is passed over, and told in `passed`: it stops no claim of the
 * tasks after it.
 */
export function claimNext(src: ByteString, filter: NextFilter, args: ClaimArgs, passed: PassedOver[] = []): Plan<Task | null> {
  const now = cutoff(args.now);
  const passOver = (s: Seen, reason: string) => void passed.push({ task: taskOf(src, s), reason: refusedLine(reason, s.t.line).message });
  if (args.maxAttempts !== undefined || mayHoldPaths(src)) {
    const facts = new BoardFacts(src, now);
    // A board with path declarations or locks: every line's holds matter (see firstFree). A budget: lapsed claims past it are parked on the way.
    const parked: Seen[] = [];
    const wanted = (s: Seen) => {
      // Claimable but for its own line: passed over, saying so (a lapsed claim at the budget is parked first).
      const a = nextAnswer(seenCandidate(src, s, now, false, facts), now);
      const refused = a === null || a === 'leave' ? null : a.passOver;
      const ok =
        a !== 'leave' &&
        passesFilter(s.t.section, () => tagsIn(src, s.text), filter);
      if (ok && atBudget(s, args.maxAttempts)) parked.push(s);
      if (!ok || atBudget(s, args.maxAttempts)) return false;
      if (refused !== null) passOver(s, refused);
      return refused === null;
    };
    const free = firstFree(src, wanted, now);
    // Only what comes before the task taken was passed over.
    if (free) passed.splice(0, passed.length, ...passed.filter((p) => p.task.line < free.t.line));
    if (!free) return withParks(src, parked, { edits: [], result: null, changes: [] });
    return withParks(src, parked, claimChange(src, free, args));
  }
  let allDone = false;
  // Done, failed and live default-lease claims are never claimable, so runs of them are passed
  // over. Claims later than the cutoff's minute will do (the pattern then lasts a minute); one
  // in that minute just ends a run, and the walk visits it.
  const iso = now.iso;
  const settled = iso === null ? undefined : () => settledRun(`${iso.slice(0, 17)}59Z`);
  const line = new ScannedCandidate(src, now);
  const picked = walkLines(src, (s, aboveAllDone) => {
    // No line here declares or locks a path: the rule but for paths decides.
    const a = nextAnswer(line.at(s, aboveAllDone), now);
    const refused = a === null || a === 'leave' ? null : a.passOver;
    allDone = aboveAllDone;
    const wanted =
      a !== 'leave' &&
      passesFilter(s.section, () => tagsIn(src, textBetween(src, s.status, s.markerEnd, s.end)), filter);
    if (!wanted || refused === null) return wanted;
    passOver(seenAt(src, s, aboveAllDone), refused);
    return false;
  }, undefined, settled);
  if (!picked) return { edits: [], result: null, changes: [] };
  return claimChange(src, seenAt(src, picked, allDone), args);
}

/**
 * The first wanted task that no live claim's paths block. A claim after it in
 * the file can hold a path it declares, so the walk reads every line's holds
 * (in the same pass), and stops early only at a task that declares nothing
 * with every wanted task before it already blocked. A path that does not
 * normalise blocks nothing here (see declaredOf); the caller refuses the pick.
 */
function firstFree(src: ByteString, wanted: (s: Seen) => boolean, now: Cutoff): Seen | null {
  const held: Hold[] = [];
  const pending: Array<{ seen: Seen; paths: Paths }> = [];
  let free: Seen | null = null;
  const stop = walk(src, (s) => {
    holdsOf(src, s, now, held);
    if (free !== null || !wanted(s)) return false;
    const paths = declaredOf(src, s, false);
    if (paths.writes.length > 0 || paths.reads.length > 0) {
      pending.push({ seen: s, paths });
      return false;
    }
    free = s;
    // Holds only grow: a task blocked by what is seen so far stays blocked.
    return pending.every((p) => blockingHold(p.paths, held) !== null);
  });
  if (stop) return stop;
  // Every pending task comes before `free`, the first that declares nothing.
  return pending.find((p) => blockingHold(p.paths, held) === null)?.seen ?? free;
}

function tagsIn(src: ByteString, text: [number, number]): readonly string[] {
  return parseTags(utf8(src, text[0], text[1]));
}

/**
 * Claim one task by id: the first line with that id that is claimable. A
 * live claim is never claimable, whoever asks: the holder's own included
 * (it renews with a heartbeat), so two claimants under one name never both
 * hold a task. Exact duplicates share an id and are interchangeable here. A
 * tracker key on several lines names no one task, so it is refused as a
 * usage error listing the ids to use instead.
 */
export function claimById(src: ByteString, id: string, args: ClaimArgs): Plan<Task> {
  const now = cutoff(args.now);
  // The rule with paths: a line's declared paths are weighed against the board's holds when it decides.
  const facts = new BoardFacts(src, now);
  const answers = new Map<Seen, Blocker<true, Hold, DepTask> | null>();
  const why = (s: Seen): Blocker<true, Hold, DepTask> | null => {
    let b = answers.get(s);
    if (b === undefined) answers.set(s, (b = blockerOf(seenCandidate(src, s, now, true, facts), now)));
    return b;
  };
  const { form, found } = lookup(src, id, (s) => why(s) === null);
  if (found.length === 0) throw noTask(id);
  if (form === 'key' && found.length > 1) throw ambiguousKey(src, id, found);
  // The first line claimable but for its own line or a path held: parked at the budget (a lapsed claim), else claimed or refused.
  const pick = found.find((s) => {
    const rest = blockerButLine(seenCandidate(src, s, now, true, facts), now);
    return rest === null || rest.kind === 'path' || rest.kind === 'line';
  });
  // Parked, not taken: the caller learns it as a failed task (the board turns that into a CONFLICT).
  if (pick !== undefined && atBudget(pick, args.maxAttempts)) return withParks(src, [pick], { edits: [], later: () => parkedTask(src, pick), changes: [] });
  if (pick !== undefined && why(pick) === null) return claimChange(src, pick, args);
  // Refused: by the pick's answer, else by that of the first line not finished (else the first), as every board refuses it.
  const first = pick ?? found.find((s) => s.t.marker.status !== 'done' && s.t.marker.status !== 'failed') ?? found[0]!;
  throw refusal(taskOf(src, first), refusedFor(src, why(first)!), args.now, args.by);
}

/** A file board's blocker with what its refusal names: the task waited for, the hold with its task. */
function refusedFor(src: ByteString, b: Blocker<true, Hold, DepTask>): RefusedFor {
  if (b.kind === 'after') return { kind: 'after', task: afterTask(b.task) };
  if (b.kind === 'path') return { kind: 'path', hold: { by: b.hold.seen.t.marker.by, path: b.hold.path, mode: b.hold.mode, task: taskOf(src, b.hold.seen) } };
  return b;
}

/** A key on several lines: the board's one message, with the tasks it is on. */
export function ambiguousKey(src: ByteString, key: string, found: readonly Seen[], what = 'tasks'): MdclaimError {
  return keyOnSeveral(key, found.map((s) => ({ ...taskOf(src, s), line: s.t.line })), what);
}
