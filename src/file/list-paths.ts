import type { ByteString } from '../format/bytes.js';
import { blockingHold, cutoff } from '../board/claimable.js';
import { heldBy, holdsOf, mayHoldPaths, type Hold } from './held.js';
import type { HeldPath, Paths } from '../board/path-types.js';
import { KeyCount, walk } from '../board/walk.js';

/** Every path a live claim holds now, declared or locked, in file order. */
export function listPaths(src: ByteString, nowMs: number): HeldPath[] {
  if (!mayHoldPaths(src)) return [];
  const now = cutoff(nowMs);
  const keys = new KeyCount();
  const holds: Hold[] = [];
  walk(src, (s) => {
    keys.add(src, s);
    holdsOf(src, s, now, holds);
  });
  return holds.map((h) => heldPath(h, keys.idOf(src, h.seen)));
}

/**
 * May `by` touch these paths? Yes when every live claim holding a path in
 * the way (by the claim rule: any hold on a path to write, a write on a path
 * to read) is the caller's: returns those holds. Otherwise CONFLICT naming
 * the first other holder.
 */
export function checkPaths(src: ByteString, by: string, want: Paths, nowMs: number): HeldPath[] {
  if (!mayHoldPaths(src)) return [];
  const now = cutoff(nowMs);
  const holds: Hold[] = [];
  walk(src, (s) => holdsOf(src, s, now, holds));
  const inWay = holds.filter((h) => blockingHold(want, [h]) !== null);
  const other = inWay.find((h) => h.seen.t.marker.by !== by);
  if (other) throw heldBy(src, other);
  if (inWay.length === 0) return [];
  const keys = new KeyCount();
  walk(src, (s) => keys.add(src, s));
  return inWay.map((h) => heldPath(h, keys.idOf(src, h.seen)));
}

function heldPath(h: Hold, task: string): HeldPath {
  const by = h.seen.t.marker.by;
  return { path: h.path, mode: h.mode, task, ...(by === undefined ? {} : { by }), ...(h.since === undefined ? {} : { since: h.since }), kind: h.kind };
}
