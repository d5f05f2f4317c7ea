import type { ByteString } from '../format/bytes.js';
import type { TaskScanner } from '../format/scan.js';
import { FAILED_SEP, textAndTries, textBetween } from '../format/task.js';
import { blockingHold, isLapsed, isLapsedAt, markerCandidate, type AfterBlocker, type Candidate, type Cutoff } from '../board/claimable.js';
import { declaredOf, holdsOf, mayHoldPaths, type Hold } from './held.js';
import { textRefusal } from '../board/unclaimable.js';
import { KeyCount, walk, type Seen } from '../board/walk.js';
import { dependencies, type Dependencies, type DepTask } from '../board/after.js';
import { textHashNumber, trackerKey } from '../format/id.js';
import { parseAfter } from '../format/after.js';
import { utf8 } from '../format/bytes.js';

// The file board's lines as the one claimable rule (blockerOf) reads them.

/**
 * A task line seen in a walk. `paths` asks the board's holds when its line
 * declares paths (every line is read for them, so only where a claim decides
 * on one task); without it the caller checks paths itself (see firstFree).
 */
export function seenCandidate(src: ByteString, s: Seen, now: Cutoff, paths = false, facts = new BoardFacts(src, now)): Candidate<true, Hold, DepTask> {
  return markerCandidate(s.t.marker, s.aboveAllDone, now, s.tries?.notBefore, paths ? () => facts.holdInTheWay(s) : undefined, () => facts.after(s), () => lineRefusal(src, s.text[0], s.text[1]));
}

/**
 * Why the text at [from, to) keeps its line from being claimed (textRefusal),
 * or null: decoded only when its bytes hold a `{` or the reason's separator.
 */
function lineRefusal(src: ByteString, from: number, to: number): string | null {
  if (!hasBrace(src, from, to) && !src.slice(Math.max(0, from - 1), to).includes(FAILED_SEP)) return null;
  return textRefusal(utf8(src, from, to));
}

/**
 * What one read of a file board knows about its tasks beyond each line, built
 * once per operation and only when a line the rule reaches asks: what the
 * tasks wait for (`{after: …}`: a line's own bytes say whether it waits for
 * anything, so a board without one pays a look at each such line's text for
 * a `{`, and nothing more), and what the live claims hold (only when a line
 * that declares paths is weighed, on a board where any may be held).
 */
export class BoardFacts {
  private built: { tasks: DepTask[]; deps: Dependencies | null; at: Map<number, number> } | undefined;
  private held: Hold[] | undefined;

  constructor(private readonly src: ByteString, private readonly now: Cutoff) {}

  /** What the task of line `line`, its text at [from, to), waits for now (Dependencies.answer), or null. */
  afterAt(line: number, from: number, to: number): AfterBlocker<DepTask> | null {
    if (!declaresAfter(this.src, from, to)) return null;
    const { tasks, deps, at } = (this.built ??= this.build());
    const a = deps?.answer(at.get(line)!) ?? null;
    return a?.kind === 'wait' ? { kind: 'wait', task: tasks[a.task]! } : a;
  }

  after(s: Seen): AfterBlocker<DepTask> | null {
    return this.afterAt(s.t.line, s.text[0], s.text[1]);
  }

  /** The first live hold on another line in the way of the paths `s` declares (a line that declares one that does not normalise is refused). */
  holdInTheWay(s: Seen): Hold | null {
    const src = this.src;
    if (!mayHoldPaths(src)) return null;
    const paths = declaredOf(src, s, true);
    if (paths.writes.length === 0 && paths.reads.length === 0) return null;
    return blockingHold(paths, this.holds().filter((h) => h.seen.t.start !== s.t.start));
  }

  /** Every path held on the board now, in file order (see holdsOf), read once. */
  private holds(): Hold[] {
    if (this.held === undefined) {
      const held: Hold[] = [];
      walk(this.src, (s) => holdsOf(this.src, s, this.now, held));
      this.held = held;
    }
    return this.held;
  }

  /** Every task as the rule reads it, its text decoded only where asked for (a line with a brace, a task named). */
  private build(): { tasks: DepTask[]; deps: Dependencies | null; at: Map<number, number> } {
    const src = this.src;
    const seen: Seen[] = [];
    const keys = new KeyCount();
    walk(src, (s) => {
      seen.push(s);
      keys.add(src, s);
    });
    const tasks = seen.map((s) => new LineTask(src, s, keys));
    const deps = dependencies(tasks, (i) => hasBrace(src, seen[i]!.text[0], seen[i]!.text[1]));
    return { tasks, deps, at: new Map(seen.map((s, i) => [s.t.line, i])) };
  }
}

/** A task line as the after rule reads it: its id, text and hash made only when asked for. */
class LineTask implements DepTask {
  private textOf: string | undefined;
  private idOf: string | undefined;

  constructor(private readonly src: ByteString, private readonly s: Seen, private readonly keys: KeyCount) {}

  get id(): string {
    return (this.idOf ??= this.keys.idOf(this.src, this.s));
  }

  get text(): string {
    return (this.textOf ??= utf8(this.src, this.s.text[0], this.s.text[1]));
  }

  get status(): DepTask['status'] {
    return this.s.t.marker.status;
  }

  get section(): string | undefined {
    return this.s.t.section;
  }

  get by(): string | undefined {
    return this.s.t.marker.by;
  }

  get key(): string | null {
    return trackerKey(this.src, this.s.text[0], this.s.text[1]);
  }

  get hash(): number {
    return textHashNumber(this.src, this.s.text[0], this.s.text[1]);
  }
}

/** Does the text at [from, to) declare `{after: …}`? Its bytes are looked at for a `{` before anything is parsed. */
function declaresAfter(src: ByteString, from: number, to: number): boolean {
  return hasBrace(src, from, to) && parseAfter(utf8(src, from, to)).length > 0;
}

function hasBrace(src: ByteString, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (src.charCodeAt(i) === 0x7b) return true;
  return false;
}

/**
 * The line a scanner stands on, read only as far as the rule asks: a claim
 * mdclaim wrote with the default lease is judged where its time lies, any
 * other by its marker; the not-before time is read only for a line the
 * marker would let be taken. One object per walk, moved from line to line.
 */
export class ScannedCandidate implements Candidate<true, never, DepTask> {
  s!: TaskScanner;
  aboveAllDone = true;
  private readonly facts: BoardFacts;
  /** Where the reason's separator is next found at or after the line last asked (Infinity: nowhere), so the walk looks once. */
  private sepAt = -1;

  constructor(private readonly src: ByteString, private readonly now: Cutoff) {
    this.facts = new BoardFacts(src, now);
  }

  at(s: TaskScanner, aboveAllDone: boolean): this {
    this.s = s;
    this.aboveAllDone = aboveAllDone;
    return this;
  }

  get status() {
    return this.s.status;
  }

  /**
   * What its own line says (textRefusal). Called on a board where no line
   * declares paths (see mayHoldPaths), so only the reason's separator can
   * refuse one: its text is read only when the separator lies in it.
   */
  line(): string | null {
    const s = this.s;
    if (this.sepAt < s.markerEnd) {
      const at = this.src.indexOf(FAILED_SEP, s.markerEnd);
      this.sepAt = at < 0 ? Infinity : at;
    }
    if (this.sepAt >= s.end) return null;
    const [from, to] = textBetween(this.src, s.status, s.markerEnd, s.end);
    return textRefusal(utf8(this.src, from, to));
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

  /** What its line waits for (see BoardFacts): its text is read only when its bytes hold a `{`. */
  after(): AfterBlocker<DepTask> | null {
    const s = this.s;
    if (!hasBrace(this.src, s.markerEnd, s.end)) return null;
    const [from, to] = textBetween(this.src, s.status, s.markerEnd, s.end);
    return this.facts.afterAt(s.line, from, to);
  }
}
