import { utf8 } from './bytes.js';
import { readDuration } from './duration.js';
import type { Marker, Status } from './marker.js';

// The fields of a marker after its status sign, in mdclaim's form and in the forms the other ADW
// tools write (docs/FORMAT.md, dialects): each placed where its form and look say, or kept as written.

/** A claim time's shape (claimInstant says whether it names an instant). */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const TOKEN = /^[^\s,\]]+$/;

/**
 * The fields after the status sign, in the forms ADW tools write (see
 * docs/FORMAT.md, dialects): after a comma (`[🟡, by, at, lease]`,
 * `[✅, by]`, `[✅, commit, id]`, `[⏰, id]`, `[, id]`) or after a blank,
 * the first one up to a comma (`[✅ commit, by]`, `[🟡 by, path]`,
 * `[❌ by]`). Each is placed where its form and look say; one that no rule
 * places is kept as written in `fields`, never guessed at.
 */
export function readFields(rest: string, status: Status, end: number): Marker | null {
  let head: string | undefined;
  let list: string[] = [];
  if (rest.startsWith(',')) list = rest.slice(1).split(',').map((f) => f.trim());
  else if (rest.startsWith(' ')) {
    const comma = rest.indexOf(',');
    head = (comma < 0 ? rest : rest.slice(0, comma)).trim();
    if (comma >= 0) list = rest.slice(comma + 1).split(',').map((f) => f.trim());
  } else if (rest !== '') return null;
  // A bracket of prose (`[ see above]`) has no sign: an unsigned marker's fields follow a comma.
  if (head !== undefined && (status === 'open' || !TOKEN.test(head))) return null;
  if (list.some((f) => !TOKEN.test(f)) || list.length + (head === undefined ? 0 : 1) > MAX_FIELDS) return null;
  const marker: Marker = { status, end };
  const extra: string[] = [];
  if (status === 'claimed') {
    if (!placeClaim(marker, head, list, extra)) return null;
  } else if (status === 'done') {
    placeDone(marker, head, list, extra);
  } else if (status === 'failed' && (head !== undefined || list.length > 0)) {
    marker.by = utf8(head ?? list.shift()!);
    extra.push(...list);
  } else extra.push(...(head === undefined ? [] : [head]), ...list);
  if (extra.length > 0) marker.fields = extra.map((f) => utf8(f));
  return marker;
}

/** The most fields a marker holds (a claim's by, time and lease, and one more a tool keeps there). */
const MAX_FIELDS = 4;
/** What a commit looks like: 7 to 40 hex digits. */
const COMMIT = /^[0-9a-fA-F]{7,40}$/;

/**
 * A claim: `[🟡, by, at, lease]`, where what follows the claimant is its time
 * and lease or nothing; or `[🟡 by, …]`, where a time is found by its look
 * (with a lease right after it) and the rest is kept as written.
 */
function placeClaim(marker: Marker, head: string | undefined, list: string[], extra: string[]): boolean {
  const by = head ?? list.shift();
  if (by === undefined) return true;
  marker.by = utf8(by);
  let at = 0;
  if (head !== undefined) {
    at = list.findIndex((f) => RFC3339.test(f));
    if (at < 0) return extra.push(...list), true;
    extra.push(...list.slice(0, at));
  } else if (list.length > 2) return false;
  const time = list[at];
  if (time === undefined) return true;
  if (!RFC3339.test(time)) return false;
  marker.claimedAt = time;
  // A lease only follows a claim time: an untimed claim has no age to measure it from. In the
  // comma form it is the field after the time or nothing; in the blank form, a field that reads as one.
  const lease = list[at + 1];
  const ms = lease === undefined ? null : readDuration(lease);
  if (lease !== undefined && ms === null && head === undefined) return false;
  if (ms !== null) marker.leaseMs = ms;
  extra.push(...list.slice(ms === null ? at + 1 : at + 2));
  return true;
}

/**
 * Done: `[✅ commit, by]` and `[✅, by]`, as ADW writes them; two fields after a
 * comma are a commit and an id in either order (`[✅, commit, id]`,
 * `[✅, id, sha]`), placed when exactly one of them looks like a commit.
 */
function placeDone(marker: Marker, head: string | undefined, list: string[], extra: string[]): void {
  if (head !== undefined) {
    marker.commit = utf8(head);
    if (list.length > 0) marker.by = utf8(list.shift()!);
  } else if (list.length === 1) marker.by = utf8(list.shift()!);
  else if (list.length === 2) {
    const [a, b] = list as [string, string];
    if (COMMIT.test(a) !== COMMIT.test(b)) {
      const commit = COMMIT.test(a) ? a : b;
      marker.commit = utf8(commit);
      marker.by = utf8(commit === a ? b : a);
      list.length = 0;
    }
  }
  extra.push(...list);
}

