import type { ByteString } from '../format/bytes.js';
import type { TaskScanner } from '../format/scan.js';
import { textAndTries } from '../format/task.js';
import { blockingHold, isLapsed, isLapsedAt, markerCandidate, type AfterBlocker, type Candidate, type Cutoff } from '../board/claimable.js';
import { boardHolds, declaredOf, mayHoldPaths, type Hold } from './held.js';
import { listTasks, type Seen } from '../board/walk.js';
import { dependencies, mayAnyWait } from '../board/after.js';
import { afterOf } from '../board/standing.js';
import type { Task } from '../format/task.js';

// The file board's lines as the one claimable rule (blockerOf) reads them.

/**
 * A task line seen in a walk. `paths` asks the board's holds when its line
 * declares paths (every line is read for them, so only where a claim decides
 * on one task); without it the caller checks paths itself (see firstFree).
 */
export function seenCandidate(src: ByteString, s: Seen, now: Cutoff, paths = false, waits: BoardWaits | null = null): Candidate<true, Hold, Task> {
  return markerCandidate(s.t.marker, s.aboveAllDone, now, s.tries?.notBefore, paths ? () => holdInTheWay(src, s, now) : undefined, waits === null ? undefined : () => waits.after(s));
}

/** What the tasks of a file board wait for (`{after: …}`), read once per operation; see boardWaits. */
export interface BoardWaits {
  tasks: Task[];
  after(s: Seen): AfterBlocker<Task> | null;
}

/**
 * The after rule's input for a file board's bytes: null when no line
 * declares `{after: …}` (a few searches of the bytes), so a board without
 * one pays nothing more; else every task, read once, and what each waits for.
 */
export function boardWaits(src: ByteString): BoardWaits | null {
  if (!mayAnyWait(src)) return null;
  const tasks = listTasks(src);
  const deps = dependencies(tasks);
  if (deps === null) return null;
  const at = new Map(tasks.map((t, i) => [t.line, i]));
  return { tasks, after: (s) => afterOf(deps, at.get(s.t.line)!, tasks) };
}

/** The first live hold on another line in the way of the paths `s` declares (a line that declares one that does not normalise is refused). */
function holdInTheWay(src: ByteString, s: Seen, now: Cutoff): Hold | null {
  if (!mayHoldPaths(src)) return null;
  const paths = declaredOf(src, s, true);
  if (paths.writes.length === 0 && paths.reads.length === 0) return null;
  return blockingHold(paths, boardHolds(src, now, s));
}

/**
 * The line a scanner stands on, read only as far as the rule asks: a claim
 * mdclaim wrote with the default lease is judged where its time lies, any
 * other by its marker; the not-before time is read only for a line the
 * marker would let be taken. One object per walk, moved from line to line.
 */
export class ScannedCandidate implements Candidate<true, never> {
  s!: TaskScanner;
  aboveAllDone = true;

  constructor(private readonly src: ByteString, private readonly now: Cutoff) {}

  at(s: TaskScanner, aboveAllDone: boolean): this {
    this.s = s;
    this.aboveAllDone = aboveAllDone;
    return this;
  }

  get status() {
    return this.s.status;
  }

  lapsed(): boolean {
    const s = this.s;
    return s.claimTime >= 0 ? isLapsedAt(this.src, s.claimTime, this.now) : isLapsed(s.marker(), this.now);
  }

  notBefore(): string | undefined {
    const s = this.s;
    return textAndTries(this.src, s.status, s.markerEnd, s.end).tries?.notBefore;
  }

  above(): true | null {
    return this.aboveAllDone ? null : true;
  }

  hold(): null {
    return null;
  }

  /** A board this walks declares no `{after: …}` (see boardWaits). */
  after(): null {
    return null;
  }
}
