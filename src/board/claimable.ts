import { DEFAULT_LEASE_MS } from '../format/duration.js';
import { compareAt, type ByteString } from '../format/bytes.js';
import type { Marker } from '../format/marker.js';
import { formatClaimedAt } from '../format/marker.js';
import { claimInstant } from '../format/claim-time.js';
import { normalisePath, overlaps, type PathMode } from '../format/paths.js';
import { textRefusal } from './unclaimable.js';
import { dependencies, type Dependencies } from './after.js';
import { readDuration } from '../format/duration.js';
import type { Task } from '../format/task.js';

/** An instant and the claim time that is that old: `now - age`, computed once per operation. */
export interface Cutoff {
  now: number;
  ms: number;
  /** The same instant as mdclaim writes it, so canonical timestamps compare as strings. */
  iso: string | null;
}

export function cutoff(now: number, ageMs: number = DEFAULT_LEASE_MS): Cutoff {
  const ms = now - ageMs;
  // Timestamps are whole seconds: at <= ms exactly when at <= floor(ms) to the second.
  return { now, ms, iso: ms >= 0 && ms < 253402300800000 ? formatClaimedAt(ms) : null };
}

/** Is a timed claim at least as old as the cutoff's age? (`reap --ttl`'s override.) */
export function isOlderThan(m: Marker, limit: Cutoff): boolean {
  const at = m.claimedAt;
  if (m.status !== 'claimed' || at === undefined) return false;
  // A canonical time compares as text (a leap second :60 sorts as the instant after :59 does); only an old one is read.
  if (limit.iso !== null && at.length === 20 && at.charCodeAt(19) === 0x5a) return at <= limit.iso && claimInstant(at) !== null;
  const ms = claimInstant(at);
  return ms !== null && ms <= limit.ms;
}

/**
 * isLapsed for a claim as mdclaim writes it with the default lease
 * (`[🟡, by, 2026-11-30T04:06:29Z]`), its claim time at `at` in the file's
 * bytes: the same comparison as isOlderThan against `cutoff(now)`, made where
 * the time lies.
 */
export function isLapsedAt(src: ByteString, at: number, now: Cutoff): boolean {
  if (now.iso !== null) return compareAt(src, at, now.iso) <= 0 && claimInstant(src.slice(at, at + 20)) !== null;
  const ms = claimInstant(src.slice(at, at + 20));
  return ms !== null && ms <= now.ms;
}

/**
 * Has a timed claim outlived its own lease? Lapsed when now >= claimed_at +
 * lease, with the lease the claim's line names (30m when it names none), so
 * every reader agrees whatever lease it would give its own claims. `now` is
 * the cutoff's; a line without a lease compares as a string against the
 * default-lease cutoff (pass `cutoff(now)`). An untimed ADW claim (`[🟡, id]`)
 * has no age, so it never lapses by itself.
 */
export function isLapsed(m: Marker, now: Cutoff): boolean {
  if (m.leaseMs === undefined || m.leaseMs === DEFAULT_LEASE_MS) return isOlderThan(m, now);
  if (m.status !== 'claimed' || m.claimedAt === undefined) return false;
  const ms = claimInstant(m.claimedAt);
  return ms !== null && ms + m.leaseMs <= now.now;
}

/**
 * Has a retry's time come? A task given back for a retry (its line's
 * `not before <time>`) may be claimed from that instant on, by any claimer;
 * a time that names no instant holds nothing back.
 */
export function isDue(notBefore: string | undefined, now: Cutoff): boolean {
  if (notBefore === undefined) return true;
  const at = claimInstant(notBefore);
  return at === null || at <= now.now;
}

/**
 * Why a task cannot be claimed now: its status (done, failed), its own line
 * (or what its `{after: …}` names: no task, a cycle), a live claim on it, a
 * retry's time not yet come, a task above a `[⏰]` in its section
 * not done, a task it waits for (`{after: …}`) not done, or a live claim on
 * another task holding a path in its way. `A` is how a board names the task
 * above, `H` the hold in the way, `W` the task waited for.
 */
export type Blocker<A = unknown, H = unknown, W = A> =
  | { kind: 'status'; status: 'done' | 'failed' }
  | { kind: 'claimed' }
  | { kind: 'retry'; notBefore: string }
  | { kind: 'above'; task: A }
  | { kind: 'after'; task: W }
  | { kind: 'path'; hold: H }
  | { kind: 'line'; reason: string };

/** What a task's `{after: …}` says now (see after.ts): a task it waits for that is not done, or why its line cannot be claimed. */
export type AfterBlocker<W> = { kind: 'wait'; task: W } | { kind: 'line'; reason: string };

/**
 * A task and the board around it, as the claimable rule reads them. Each
 * part is asked only when the rule gets to it, so a claim walking a board
 * reads a line's not-before time or the board's holds only when they decide.
 */
export interface Candidate<A, H, W = A> {
  readonly status: Marker['status'];
  /** Why its own line can never be claimed as it is (textRefusal: a declaration that does not normalise, the reason's separator), or null. */
  line(): string | null;
  /** A claimed task: has its claim outlived its own lease (isLapsed)? */
  lapsed(): boolean;
  /** Its line's not-before time, if any. */
  notBefore(): string | undefined;
  /** A `[⏰]`: the first task above it in its section that is not done, or null. */
  above(): A | null;
  /** The first hold a live claim on another task has in the way of its declared paths (blockingHold), or null. */
  hold(): H | null;
  /** What its `{after: …}` says (Dependencies.answer): the first task waited for not done, a refusal of its line, or null. */
  after(): AfterBlocker<W> | null;
}

/**
 * The one claimable rule: null when the task may be claimed now, else what
 * stands in the way, the first of: a finished task's status (done, failed);
 * its own line, which no one can claim as it is (textRefusal), since that
 * will not pass with time; a live claim; an `{after: …}` that names no task,
 * or a cycle; a retry's time not yet come (isDue); a `[⏰]` with a task above
 * it in its section not done; a task it waits for (`{after: …}`) not done; a
 * live claim on another task holding a path in the way of those it declares
 * (blockingHold). A lapsed claim may be taken over. Every claim, view and
 * `--until-settled` asks it (a settled run asks it at the end of time:
 * cutoff(Infinity)), and a refusal says its answer (conflict.ts, refusal);
 * the PostgreSQL board states all but the line's own rule once in SQL
 * (task_view's claimable and blocker), and puts that rule first as this
 * does (ownLine).
 */
export function blockerOf<A, H, W>(c: Candidate<A, H, W>, now: Cutoff): Blocker<A, H, W> | null {
  return ownLine(c.status, () => c.line()) ?? blockerButLine(c, now);
}

/** The per-line rule, blockerOf's first case after a finished task's status: a line no one can claim as it is, and why. */
export function ownLine(status: Marker['status'], line: () => string | null): { kind: 'line'; reason: string } | null {
  if (status === 'done' || status === 'failed') return null;
  const reason = line();
  return reason === null ? null : { kind: 'line', reason };
}

/** blockerOf but for the task's own line: what `next` weighs before it passes a refused line over (nextAnswer), and what a claimer's budget parks by. */
export function blockerButLine<A, H, W>(c: Candidate<A, H, W>, now: Cutoff): Blocker<A, H, W> | null {
  if (c.status === 'done' || c.status === 'failed') return { kind: 'status', status: c.status };
  if (c.status === 'claimed' && !c.lapsed()) return { kind: 'claimed' };
  const after = c.after();
  if (after?.kind === 'line') return after;
  const notBefore = c.notBefore();
  if (notBefore !== undefined && !isDue(notBefore, now)) return { kind: 'retry', notBefore };
  if (c.status === 'blocked') {
    const above = c.above();
    if (above !== null) return { kind: 'above', task: above };
  }
  if (after !== null) return { kind: 'after', task: after.task };
  const hold = c.hold();
  return hold === null ? null : { kind: 'path', hold };
}

/**
 * What `next` does with a task, by blockerOf's answer: take it (null), leave
 * it (something other than its own line stands in its way), or pass it over
 * saying why (its own line is all that does). Asked in the order cheapest for
 * a walk: the line is read only for a task that is otherwise claimable.
 */
export function nextAnswer<A, H, W>(c: Candidate<A, H, W>, now: Cutoff): null | 'leave' | { passOver: string } {
  if (blockerButLine(c, now) !== null) return 'leave';
  const line = ownLine(c.status, () => c.line());
  return line === null ? null : { passOver: line.reason };
}

const NONE = () => null;

/**
 * A task by its marker, for blockerOf: `aboveAllDone` for its section, `hold` when paths are known (else none counts),
 * `after` when what it waits for is, `line` when its text is (else its line is taken as claimable).
 */
export function markerCandidate<H = never, W = true>(
  m: Marker, aboveAllDone: boolean, now: Cutoff, notBefore: string | undefined, hold: () => H | null = NONE, after: () => AfterBlocker<W> | null = NONE,
  line: () => string | null = NONE,
): Candidate<true, H, W> {
  return { status: m.status, line, lapsed: () => isLapsed(m, now), notBefore: () => notBefore, above: () => (aboveAllDone ? null : true), hold, after };
}

/** blockerOf but for paths (checked against the board's holds by the caller, see blockingHold) and its own line (its text unread), by its marker. */
export function isClaimable(m: Marker, aboveAllDone: boolean, now: Cutoff, notBefore: string | undefined): boolean {
  return blockerOf(markerCandidate(m, aboveAllDone, now, notBefore), now) === null;
}

/** A path as the predicate sees it: normalised, and whether it is written or only read. */
export interface ModedPath {
  path: string;
  mode: PathMode;
}

/** Does a claim hold its paths (declared on its line, locked under it)? While it is live: a lapsed claim holds nothing. */
export function holdsPaths(m: Marker, now: Cutoff): boolean {
  return m.status === 'claimed' && !isLapsed(m, now);
}

/** A path a claim holds: declared on its line or locked under it, and since when. */
export interface ClaimHold extends ModedPath {
  kind: 'declared' | 'locked';
  /** When a lock was taken; a declared path is held since the claim time. */
  since?: string | undefined;
}

/**
 * The paths a claim holds (every board's one reading, beside the SQL's
 * mdclaim.held_path; ask holdsPaths first: a lapsed claim holds nothing):
 * the paths its line declares, writes then reads, since its claim time, then
 * its locks in line order, each since it was taken, a lock whose path does
 * not normalise holding nothing. `make` turns each into the board's own
 * record (of one shape, `since` undefined where unknown, so the rule reads
 * every hold alike).
 */
export function claimHolds<H>(
  declared: { writes?: readonly string[] | undefined; reads?: readonly string[] | undefined }, claimedAt: string | undefined,
  locks: readonly { mode: PathMode; path: string; since?: string | undefined }[] | undefined,
  make: (path: string, mode: PathMode, kind: ClaimHold['kind'], since: string | undefined) => H, into: H[],
): void {
  for (const path of declared.writes ?? []) into.push(make(path, 'write', 'declared', claimedAt));
  for (const path of declared.reads ?? []) into.push(make(path, 'read', 'declared', claimedAt));
  for (const lock of locks ?? []) {
    const n = normalisePath(lock.path);
    if ('path' in n) into.push(make(n.path, lock.mode, 'locked', lock.since));
  }
}

/**
 * The path part of the claimable predicate: a task that writes `writes` and
 * reads `reads` is not claimable while a live claim on another task holds a
 * path overlapping one of its writes (to read or to write), or writes a path
 * overlapping one of its reads. Readers share a path; who holds the claim
 * does not matter, the same claimant included (two tasks in flight must not
 * edit one file). `held` is what the live claims on the other tasks hold
 * (see holdsPaths); returns the first hold in the way, or null.
 */
export function blockingHold<H extends ModedPath>(want: { writes: readonly string[]; reads: readonly string[] }, held: readonly H[]): H | null {
  if (held.length === 0 || (want.writes.length === 0 && want.reads.length === 0)) return null;
  for (const h of held) {
    for (const w of want.writes) if (overlaps(w, h.path)) return h;
    if (h.mode === 'write') for (const r of want.reads) if (overlaps(r, h.path)) return h;
  }
  return null;
}

/** The fields of a task's marker the rules read, as its line wrote them. */
export function taskMarker(t: Task): Marker {
  const leaseMs = t.lease === undefined ? null : readDuration(t.lease);
  return {
    status: t.status,
    end: 0,
    ...(t.by === undefined ? {} : { by: t.by }),
    ...(t.claimedAt === undefined ? {} : { claimedAt: t.claimedAt }),
    ...(leaseMs === null ? {} : { leaseMs }),
  };
}

/** A path a live claim holds, and the task holding it. */
export interface TaskHold extends ClaimHold {
  task: Task;
}

/** Every path the live claims hold at `now` (holdsPaths: a lapsed claim holds nothing), in board order: read once per read of a board. */
export function taskHolds(tasks: readonly Task[], now: Cutoff): TaskHold[] {
  const out: TaskHold[] = [];
  for (const t of tasks) if (holdsPaths(taskMarker(t), now)) claimHolds(t, t.claimedAt, t.locks, (path, mode, kind, since) => ({ path, mode, kind, since, task: t }), out);
  return out;
}

/**
 * A task as every board's list() returns it, for blockerOf: the one adapter
 * from tasks (the file board's walks read bytes instead, see
 * file/claimable-line.ts). What the rule asks of the board around it comes
 * from `around`: the task above a `[⏰]` not done, what it waits for; its
 * paths are weighed against `holds` (taskHolds, read once for the board).
 */
export function taskCandidate<A, W>(
  t: Task, now: Cutoff, holds: readonly TaskHold[], around: { above(): A | null; after(): AfterBlocker<W> | null },
): Candidate<A, TaskHold, W> {
  return {
    status: t.status,
    line: () => textRefusal(t.text),
    lapsed: () => isLapsed(taskMarker(t), now),
    notBefore: () => t.notBefore,
    above: around.above,
    hold: () => (t.writes === undefined && t.reads === undefined ? null : blockingHold({ writes: t.writes ?? [], reads: t.reads ?? [] }, holds.filter((h) => h.task !== t))),
    after: around.after,
  };
}

/** The end of time: every timed claim has lapsed and every retry's time has come. */
const EVENTUALLY = cutoff(Infinity);

/**
 * Could each task of a board still become claimable (the question `run
 * --until-settled` asks)? The claimable rule at the end of time (open; a timed
 * claim, which may lapse; a `[⏰]` whose tasks above it in its section could
 * all still end done, so a `[❌]` above settles it), in file order, with
 * sections taken as `walk` takes them: a run of tasks under one heading. A
 * task whose paths an untimed claim holds cannot become claimable either:
 * that claim never lapses, so its paths are held for good (as its `[⏰]`s are,
 * taskHolds at the end of time); nor can one whose own text keeps it from
 * being claimed (textRefusal) until someone edits its line; nor one that
 * waits for a task (`{after: …}`) that cannot end done, a failed one say.
 * What may end done grows from the done tasks until nothing more can (a wait
 * through `[⏰]`s and `{after: …}`s that comes back to itself never ends).
 */
export function stillClaimable(tasks: readonly Task[]): boolean[] {
  const forever = taskHolds(tasks, EVENTUALLY);
  const deps = dependencies(tasks);
  let endsDone = tasks.map((t) => t.status === 'done');
  for (;;) {
    const could = couldAll(tasks, forever, deps, endsDone);
    const next = tasks.map((t, i) => t.status === 'done' || could[i]!);
    if (deps === null || next.every((v, i) => v === endsDone[i])) return could;
    endsDone = next;
  }
}

/** One pass of stillClaimable, with what may end done as far as it is known (`endsDone`). */
function couldAll(tasks: readonly Task[], forever: readonly TaskHold[], deps: Dependencies | null, endsDone: readonly boolean[]): boolean[] {
  let section: string | undefined;
  let allCould = true;
  return tasks.map((t, i) => {
    if (i === 0 || t.section !== section) {
      section = t.section;
      allCould = true;
    }
    const above = allCould ? null : true;
    const after = () => (deps === null ? null : eventually(deps, i, endsDone));
    const could = blockerOf(taskCandidate(t, EVENTUALLY, forever, { above: () => above, after }), EVENTUALLY) === null;
    // Could it still end done? Done, or could become claimable (a failed task or an untimed claim never will).
    if (t.status !== 'done' && !could) allCould = false;
    return could;
  });
}

/** The after rule at the end of time: a refusal stands; a wait holds only for a task that cannot end done. */
function eventually(deps: Dependencies, i: number, endsDone: readonly boolean[]): AfterBlocker<number> | null {
  const a = deps.answer(i);
  if (a === null || a.kind === 'line') return a;
  for (const r of deps.resolved(i)) if ('tasks' in r) for (const j of r.tasks) if (!endsDone[j]) return { kind: 'wait', task: j };
  return null;
}
