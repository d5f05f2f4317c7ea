import { MdclaimError } from '../errors.js';
import { named } from '../format/named.js';
import { bytes, type ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { lineEnding, lockIndent, locksAfter, renderLock, type LockLine, type PathLock } from '../format/locks.js';
import { formatClaimedAt } from '../format/marker.js';
import { normalisePath } from '../format/paths.js';
import { reshaped, type Task } from '../format/task.js';
import { blockingHold, cutoff, holdsPaths } from '../board/claimable.js';
import { held, type Holder } from './finish.js';
import { boardHolds, declaredOf, heldBy } from './held.js';
import type { Paths } from '../board/path-types.js';
import { wantOf, type Plan } from '../board/plan.js';
import type { Seen } from '../board/walk.js';

// Locks a holder takes while working, as lock lines under its task (see format/locks.ts).

/**
 * Lock `want` for the task the caller holds: refused (CONFLICT naming the
 * holder) when a live claim on another task holds a path in the way, by the
 * same rule as a claim (blockingHold). A path the task already holds in that
 * mode, declared or locked, is not locked twice; a write where the task locked
 * a read replaces that read. Only a live claim may lock: a lapsed one holds nothing.
 */
export function lockPaths(src: ByteString, id: string, who: Holder, want: Paths, nowMs: number): Plan<Task> {
  const { seen, task } = held(src, id, who);
  const now = cutoff(nowMs);
  if (!holdsPaths(seen.t.marker, now)) {
    throw new MdclaimError('CONFLICT', `${named(task)}: the claim by ${who.by} lapsed at ${task.expiresAt ?? 'an unknown time'}; heartbeat it before locking paths`, { holder: who.by });
  }
  const blocker = blockingHold(want, boardHolds(src, now, seen));
  if (blocker) throw heldBy(src, blocker);

  const declared = declaredOf(src, seen, false);
  const locks = locksAfter(src, seen.t.end);
  const pathOf = (l: LockLine) => normal(l.path);
  const since = formatClaimedAt(nowMs);
  const added: PathLock[] = [];
  let kept = locks;
  for (const path of want.writes) {
    if (declared.writes.includes(path) || added.some((a) => a.path === path) || kept.some((l) => l.mode === 'write' && pathOf(l) === path)) continue;
    kept = kept.filter((l) => pathOf(l) !== path);
    added.push({ mode: 'write', path, since });
  }
  for (const path of want.reads) {
    if (declared.writes.includes(path) || declared.reads.includes(path) || added.some((a) => a.path === path) || kept.some((l) => pathOf(l) === path)) continue;
    added.push({ mode: 'read', path, since });
  }
  return lockPlan(src, seen, task, locks, kept, added);
}

/**
 * Let go of the named locks of the task the caller holds, or of all of them.
 * A path the task does not lock is NOT_FOUND, and nothing is written; a
 * declared path is held until the task is finished, so it cannot be unlocked.
 */
export function unlockPaths(src: ByteString, id: string, who: Holder, paths: readonly string[] | undefined): Plan<Task> {
  const { seen, task } = held(src, id, who);
  const locks = locksAfter(src, seen.t.end);
  if (paths === undefined) return lockPlan(src, seen, task, locks, [], []);
  const declared = declaredOf(src, seen, false);
  for (const path of paths) {
    if (locks.some((l) => normal(l.path) === path)) continue;
    const isDeclared = declared.writes.includes(path) || declared.reads.includes(path);
    throw new MdclaimError('NOT_FOUND', `${named(task)} has no lock on ${path}${isDeclared ? ' (it is declared on the task\'s line, and held until the task is finished)' : ''}`);
  }
  return lockPlan(src, seen, task, locks, locks.filter((l) => !paths.includes(normal(l.path))), []);
}

/**
 * One edit from the end of the task's line to the end of its last lock line:
 * the kept lines as they were, then the added ones in the task's line ending.
 * No change, no edit.
 */
function lockPlan(src: ByteString, seen: Seen, task: Task, before: readonly LockLine[], kept: readonly LockLine[], added: readonly PathLock[]): Plan<Task> {
  const locks: PathLock[] = [...kept.map(publicLock), ...added];
  const result = locks.length > 0 ? reshaped(task, { locks }) : reshaped(task, {}, ['locks']);
  if (added.length === 0 && kept.length === before.length) return { edits: [], result, changes: [] };
  let out = '';
  let prev = seen.t.end;
  for (const l of before) {
    if (kept.includes(l)) out += src.slice(prev, l.end);
    prev = l.end;
  }
  const eol = lineEnding(src, seen.t.end);
  const indent = lockIndent(src, seen.t);
  for (const a of added) out += bytes(eol + renderLock(indent, a));
  const edit: Edit = { start: seen.t.end, end: before.at(-1)?.end ?? seen.t.end, bytes: out };
  return { edits: [edit], result, changes: [{ seen, want: wantOf(result) }] };
}

function publicLock({ mode, path, since }: LockLine): PathLock {
  return since === undefined ? { mode, path } : { mode, path, since };
}

/** A lock line's path in normal form (a hand-written one that does not normalise stays as written). */
function normal(path: string): string {
  const n = normalisePath(path);
  return 'path' in n ? n.path : path;
}
