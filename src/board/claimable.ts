import { DEFAULT_LEASE_MS } from '../format/duration.js';
import { compareAt, type ByteString } from '../format/bytes.js';
import type { Marker } from '../format/marker.js';
import { formatClaimedAt } from '../format/marker.js';
import { claimInstant } from '../format/claim-time.js';
import { normalisePath, overlaps, type PathMode } from '../format/paths.js';
import { textRefusal } from './unclaimable.js';

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
 * Why a task cannot be claimed now: its status (done, failed), a live claim
 * on it, a retry's time not yet come, a task above a `[⏰]` in its section
 * not done, or a live claim on another task holding a path in its way. `A`
 * is how a board names the task above, `H` the hold in the way.
 */
export type Blocker<A = unknown, H = unknown> =
  | { kind: 'status'; status: 'done' | 'failed' }
  | { kind: 'claimed' }
  | { kind: 'retry'; notBefore: string }
  | { kind: 'above'; task: A }
  | { kind: 'path'; hold: H }
  | { kind: 'line'; reason: string };

/**
 * A task and the board around it, as the claimable rule reads them. Each
 * part is asked only when the rule gets to it, so a claim walking a board
 * reads a line's not-before time or the board's holds only when they decide.
 */
export interface Candidate<A, H> {
  readonly status: Marker['status'];
  /** A claimed task: has its claim outlived its own lease (isLapsed)? */
  lapsed(): boolean;
  /** Its line's not-before time, if any. */
  notBefore(): string | undefined;
  /** A `[⏰]`: the first task above it in its section that is not done, or null. */
  above(): A | null;
  /** The first hold a live claim on another task has in the way of its declared paths (blockingHold), or null. */
  hold(): H | null;
}

/**
 * The one claimable rule: null when the task may be claimed now, else what
 * stands in the way. Claimable is open; or `[⏰]` with every task above it in
 * its section done; or claimed with a lapsed lease (takeover); in each case
 * not waiting for a retry's time (isDue), and with no live claim on another
 * task holding a path in the way of those it declares (blockingHold). Every
 * claim, view and `--until-settled` asks it (a settled run asks it at the
 * end of time: cutoff(Infinity)); the PostgreSQL board states the same rule
 * once in SQL (task_view's claimable and blocker).
 */
export function blockerOf<A, H>(c: Candidate<A, H>, now: Cutoff): Blocker<A, H> | null {
  if (c.status === 'done' || c.status === 'failed') return { kind: 'status', status: c.status };
  if (c.status === 'claimed' && !c.lapsed()) return { kind: 'claimed' };
  const notBefore = c.notBefore();
  if (notBefore !== undefined && !isDue(notBefore, now)) return { kind: 'retry', notBefore };
  if (c.status === 'blocked') {
    const above = c.above();
    if (above !== null) return { kind: 'above', task: above };
  }
  const hold = c.hold();
  return hold === null ? null : { kind: 'path', hold };
}

const NO_HOLD = () => null;

/** A task by its marker, for blockerOf: `aboveAllDone` for its section, `hold` when paths are known (else none counts). */
export function markerCandidate<H = never>(m: Marker, aboveAllDone: boolean, now: Cutoff, notBefore: string | undefined, hold: () => H | null = NO_HOLD): Candidate<true, H> {
  return { status: m.status, lapsed: () => isLapsed(m, now), notBefore: () => notBefore, above: () => (aboveAllDone ? null : true), hold };
}

/** blockerOf but for paths (checked against the board's holds by the caller, see blockingHold), by its marker. */
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

/** The fields of a task (or marker) the settling rule reads. */
export interface Standing {
  status: Marker['status'];
  claimedAt?: string | undefined;
}

/** The end of time: every timed claim has lapsed and every retry's time has come. */
const EVENTUALLY = cutoff(Infinity);

/**
 * Could this task still become claimable (the question `run --until-settled`
 * asks)? The claimable rule at the end of time: open; a timed claim, which may
 * lapse; or a `[⏰]` whose tasks above it in its section could all still end
 * done (so a `[❌]` above settles it).
 */
export function couldBecomeClaimable(m: Standing, aboveCouldAllEndDone: boolean): boolean {
  return blockerOf(markerCandidate({ status: m.status, end: 0, ...(m.claimedAt === undefined ? {} : { claimedAt: m.claimedAt }) }, aboveCouldAllEndDone, EVENTUALLY, undefined), EVENTUALLY) === null;
}

/** What the settling rule reads of a task's paths: its declarations and the locks under it. */
export interface StandingPaths {
  writes?: readonly string[] | undefined;
  reads?: readonly string[] | undefined;
  locks?: readonly { mode: PathMode; path: string }[] | undefined;
}

/**
 * `couldBecomeClaimable` for each task of a board in file order, with
 * sections taken as `walk` takes them: a run of tasks under one heading. A
 * task whose paths an untimed claim holds cannot become claimable either:
 * that claim never lapses, so its paths are held for good (as its `[⏰]`s are);
 * nor can one whose own text keeps it from being claimed (textRefusal) until
 * someone edits its line.
 */
export function stillClaimable(tasks: readonly (Standing & StandingPaths & { section?: string | undefined; text?: string })[]): boolean[] {
  const forever = heldForGood(tasks);
  let section: string | undefined;
  let allCould = true;
  return tasks.map((t, i) => {
    if (i === 0 || t.section !== section) {
      section = t.section;
      allCould = true;
    }
    const m: Marker = { status: t.status, end: 0, ...(t.claimedAt === undefined ? {} : { claimedAt: t.claimedAt }) };
    const want = { writes: t.writes ?? [], reads: t.reads ?? [] };
    const hold = () => (forever.length === 0 ? null : blockingHold(want, forever.filter((h) => h.task !== i)));
    const could = blockerOf(markerCandidate(m, allCould, EVENTUALLY, undefined, hold), EVENTUALLY) === null && (t.text === undefined || textRefusal(t.text) === null);
    // Could it still end done? Done, or could become claimable (a failed task or an untimed claim never will).
    if (t.status !== 'done' && !could) allCould = false;
    return could;
  });
}

/** The paths claims that never lapse hold (holdsPaths at the end of time): declared on their lines or locked under them. */
function heldForGood(tasks: readonly (Standing & StandingPaths)[]): (ModedPath & { task: number })[] {
  const held: (ModedPath & { task: number })[] = [];
  tasks.forEach((t, task) => {
    if (!holdsPaths({ status: t.status, end: 0, ...(t.claimedAt === undefined ? {} : { claimedAt: t.claimedAt }) }, EVENTUALLY)) return;
    for (const path of t.writes ?? []) held.push({ path, mode: 'write', task });
    for (const path of t.reads ?? []) held.push({ path, mode: 'read', task });
    for (const lock of t.locks ?? []) {
      const n = normalisePath(lock.path);
      if ('path' in n) held.push({ path: n.path, mode: lock.mode, task });
    }
  });
  return held;
}
