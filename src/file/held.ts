import { MdclaimError, usage } from '../errors.js';
import { named } from '../format/named.js';
import { utf8, type ByteString } from '../format/bytes.js';
import { parseDeclared } from '../format/declared.js';
import { locksAfter, lockSince, mayHoldLocks } from '../format/locks.js';
import { blockingHold, claimHolds, holdsPaths, type ClaimHold, type Cutoff } from '../board/claimable.js';
import type { Paths } from '../board/path-types.js';
import { taskOf, walk, type Seen } from '../board/walk.js';
import { heldBy as holdInTheWay } from '../board/messages.js';

/** A path a live claim holds, and how: declared on its task's line or locked under it. */
export interface Hold extends ClaimHold {
  /** The task line holding it. */
  seen: Seen;
}

const NONE: Paths = { writes: [], reads: [] };
const DECLARES = /\{[ \t]*(?:writes|reads)[ \t]*:/;

/**
 * Could anything on this board declare or lock a path? A few string
 * searches of the bytes (a `{`, then the words, before the regex: a search
 * for a word is several times cheaper than the regex stopping at every
 * tag's `{`, and a board without braces declares nothing); when
 * none finds anything the path rule cannot apply, and a claim pays nothing more.
 */
export function mayHoldPaths(src: ByteString): boolean {
  return mayHoldLocks(src) || (src.includes('{') && (src.includes('writes') || src.includes('reads')) && DECLARES.test(src));
}

/**
 * The paths a task line declares. `strict` (for a task about to be claimed)
 * refuses a path that does not normalise, naming the line; otherwise such a
 * path holds nothing: it cannot overlap a path inside the tree, the only kind
 * mdclaim lets anyone claim or lock.
 */
export function declaredOf(src: ByteString, s: Seen, strict: boolean): Paths {
  const brace = src.indexOf('{', s.text[0]);
  if (brace < 0 || brace >= s.text[1]) return NONE;
  const d = parseDeclared(utf8(src, s.text[0], s.text[1]));
  if (strict && d.errors.length > 0) throw badDeclaration(s.t.line, d.errors[0]!);
  return d.writes.length === 0 && d.reads.length === 0 ? NONE : { writes: d.writes, reads: d.reads };
}

function badDeclaration(line: number, error: string): MdclaimError {
  return usage(`line ${line} declares ${error} (fix the line to claim it)`);
}

/** What one task line holds now: its declared paths and its locks while its claim is live, else nothing. */
export function holdsOf(src: ByteString, s: Seen, now: Cutoff, into: Hold[]): void {
  if (holdsPaths(s.t.marker, now)) lineHolds(src, s, into);
}

/** What a claim on this line holds while live: its declared paths, then its lock lines. */
function lineHolds(src: ByteString, s: Seen, into: Hold[]): void {
  const locks = locksAfter(src, s.t.end).map((l) => ({ mode: l.mode, path: l.path, since: lockSince(l.since) }));
  claimHolds(declaredOf(src, s, false), s.t.marker.claimedAt, locks, (path, mode, kind, since) => ({ path, mode, kind, since, seen: s }), into);
}

/**
 * CONFLICT when renewing `s`, a lapsed claim, would take back paths another
 * live claim holds now: a lapsed claim holds nothing, so someone may have
 * claimed a task or locked a path in its way meanwhile. A live claim's paths
 * are its own already, and a board without paths has nothing to check.
 */
export function refuseRetaken(src: ByteString, s: Seen, now: Cutoff, id: string): void {
  if (!mayHoldPaths(src) || holdsPaths(s.t.marker, now)) return;
  const mine: Hold[] = [];
  lineHolds(src, s, mine);
  const want = { writes: mine.filter((h) => h.mode === 'write').map((h) => h.path), reads: mine.filter((h) => h.mode === 'read').map((h) => h.path) };
  const blocker = blockingHold(want, boardHolds(src, now, s));
  if (!blocker) return;
  const other = heldBy(src, blocker);
  throw new MdclaimError('CONFLICT', `${named({ id, text: utf8(src, s.text[0], s.text[1]) })}: the claim by ${s.t.marker.by ?? 'someone unnamed'} lapsed, and ${other.message} now, so it cannot be renewed`, other.holder === undefined ? {} : { holder: other.holder });
}

/** Every path held on the board now, in file order, but those of the line `except` (a task does not block itself). */
export function boardHolds(src: ByteString, now: Cutoff, except?: Seen): Hold[] {
  const held: Hold[] = [];
  if (!mayHoldPaths(src)) return held;
  walk(src, (s) => {
    if (s.t.start !== except?.t.start) holdsOf(src, s, now, held);
  });
  return held;
}

/** One line naming who holds what where: `dana holds src/auth/login.ts (write) on a1b2c3d4e5f6`. */
export function heldBy(src: ByteString, h: Hold): MdclaimError {
  return holdInTheWay({ by: h.seen.t.marker.by, path: h.path, mode: h.mode, task: taskOf(src, h.seen) });
}
