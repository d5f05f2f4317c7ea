import type { ByteString } from '../format/bytes.js';
import type { TaskScanner } from '../format/scan.js';
import { textAndTries } from '../format/task.js';
import { blockingHold, isLapsed, isLapsedAt, markerCandidate, type Candidate, type Cutoff } from '../board/claimable.js';
import { boardHolds, declaredOf, mayHoldPaths, type Hold } from './held.js';
import type { Seen } from '../board/walk.js';

// The file board's lines as the one claimable rule (blockerOf) reads them.

/**
 * A task line seen in a walk. `paths` asks the board's holds when its line
 * declares paths (every line is read for them, so only where a claim decides
 * on one task); without it the caller checks paths itself (see firstFree).
 */
export function seenCandidate(src: ByteString, s: Seen, now: Cutoff, paths = false): Candidate<true, Hold> {
  return markerCandidate(s.t.marker, s.aboveAllDone, now, s.tries?.notBefore, paths ? () => holdInTheWay(src, s, now) : undefined);
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
}
