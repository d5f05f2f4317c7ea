import { utf8, type ByteString } from './bytes.js';
import { FENCE, PARA } from './blocks.js';
import { FastBlockReader } from './fast-lines.js';
import { canonicalClaimTime, endsToken, markerStatus, parseMarker, type Marker, type Status } from './marker.js';
import { endsAsParagraph } from './para-end.js';
import { worktreeOf } from './worktree-section.js';
import type { SettledRuns } from './settled-run.js';

/**
 * The task-line rule. A line is a task line when it belongs to a CommonMark
 * paragraph that is not inside a block quote (at any depth), and the
 * paragraph's content on that line begins with a status marker. On the
 * paragraph's first line its content starts where the paragraph does (after
 * list markers and indentation); on a continuation line, lazy or not, it is
 * the line without its leading spaces and tabs. So lines in code blocks, HTML
 * blocks, headings (setext ones too), link reference definitions and YAML
 * front matter are never task lines.
 *
 * This module reads the block structure of a byte string in one pass and
 * yields those lines.
 */

export interface TaskLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset where the line starts (after a BOM on the first line). */
  start: number;
  /** Byte offset where the line ends, before its line ending. */
  end: number;
  /** Byte offset of the marker's `[`. */
  markerStart: number;
  marker: Marker;
  /** Text of the heading of its section, outside block quotes (the nearest heading above, or the worktree heading it is under, see addHeading); undefined when there is none. */
  section?: string;
}

export interface Heading {
  /** 1-based line where the heading starts (its first text line for a setext heading). */
  line: number;
  start: number;
  /** End of its last line (the underline for a setext heading), before the line ending. */
  end: number;
  level: number;
  text: string;
}

/**
 * Reads task lines one at a time. A task is handed out once its paragraph
 * ends (a later underline could still make the paragraph a heading), so a
 * caller that stops early pays for the lines up to the end of that paragraph.
 *
 * `advance()` stands the scanner on the next task line and builds nothing:
 * its place and status are in the fields below, and `marker()`/`taskLine()`
 * build the rest for the lines a caller wants. `next()` does both.
 */
export class TaskScanner extends FastBlockReader {
  /** Every heading outside block quotes read so far. */
  readonly headings: Heading[] = [];
  // The task line the scanner stands on, after advance() returned true.
  line = 0;
  start = 0;
  end = 0;
  markerStart = 0;
  /** Byte offset just past the marker's `]`. */
  markerEnd = 0;
  status: Status = 'open';
  /** Where the claim time starts when the marker is the claim mdclaim writes (see canonicalClaimTime), else -1. */
  claimTime = -1;
  section: string | undefined = undefined;

  private current: string | undefined = undefined;
  // The level of the worktree heading `current` is, else 0.
  private worktreeLevel = 0;
  // Task lines read, as parallel arrays reused from the start whenever all are handed out:
  // [head, ready) are final, [ready, count) wait for their paragraph to end.
  private readonly bLine: number[] = [];
  private readonly bStart: number[] = [];
  private readonly bEnd: number[] = [];
  private readonly bMarker: number[] = [];
  private readonly bClose: number[] = [];
  private readonly bTime: number[] = [];
  private readonly bStatus: Status[] = [];
  private readonly bSection: Array<string | undefined> = [];
  private head = 0;
  private ready = 0;
  private count = 0;
  // The open paragraph is known to end as one (see settleParagraph); the paragraph last asked about.
  private paraSettled = false;
  private paraAsked = -1;

  /** Stand on the next task line; false at the end of the document. */
  advance(): boolean {
    while (this.head >= this.ready) {
      if (this.count > this.ready && this.settleParagraph()) break;
      if (this.done) return false;
      this.step();
    }
    const k = this.head++;
    this.line = this.bLine[k]!;
    this.start = this.bStart[k]!;
    this.end = this.bEnd[k]!;
    this.markerStart = this.bMarker[k]!;
    this.markerEnd = this.bClose[k]! + 1;
    this.status = this.bStatus[k]!;
    this.claimTime = this.bTime[k]!;
    this.section = this.bSection[k];
    if (this.head === this.count) this.head = this.ready = this.count = 0;
    return true;
  }

  /** The marker of the line the scanner stands on, every field read. */
  marker(): Marker {
    return parseMarker(this.src, this.markerStart)!;
  }

  /** The line the scanner stands on, as one object. */
  taskLine(): TaskLine {
    return { line: this.line, start: this.start, end: this.end, markerStart: this.markerStart, marker: this.marker(), section: this.section };
  }

  next(): TaskLine | null {
    return this.advance() ? this.taskLine() : null;
  }

  /**
   * Task lines wait for their paragraph to end, since a later underline
   * could make it a heading. A top-level paragraph that is known to end as
   * one (see endsAsParagraph) hands its task lines out as they are read:
   * an ADW board of bare lines is one paragraph a section, and a claim need
   * not read all of it to take a task near its top. Asked once a paragraph.
   */
  private settleParagraph(): boolean {
    if (this.leaf !== PARA || this.depth > 0 || this.paraQuote || this.paraDefs || this.paraAsked === this.paraLine) return false;
    this.paraAsked = this.paraLine;
    if (!endsAsParagraph(this.src, this.nextLineStart)) return false;
    this.paraSettled = true;
    this.ready = this.count;
    return true;
  }

  /**
   * Pass over the run of lines `run` matches (see settledRun) from the next
   * line on, or from the line of the one task waiting for its paragraph to
   * end; returns how many task lines it passed over, none of them handed
   * out. The last line of the run is left to be read as usual: a line after
   * it could still turn its paragraph into a heading.
   */
  skipRun(runs: SettledRuns): number {
    if (this.done || this.head !== this.ready || this.quoteDepth > 0 || this.leaf >= FENCE) return 0;
    // A heading read ahead of the task handed out starts a new section, where the walk must see
    // every task again to know whether all above are done: no run starts there.
    if (this.current !== this.section) return 0;
    if (this.paraSettled && this.count === this.ready) return this.skipBareRun(runs.bare);
    const run = runs.items;
    let from: number;
    let line: number;
    if (this.count === this.ready) {
      from = this.nextLineStart;
      line = this.lineNo + 1;
    } else if (this.count === this.ready + 1 && this.bLine[this.ready] === this.lineNo && this.paraLine === this.lineNo) {
      from = this.bStart[this.ready]!;
      line = this.lineNo;
    } else return 0;
    const src = this.src;
    const matched = matchRun(run, src, from);
    if (matched === null || matched.lines < 2) return 0;
    const last = src.lastIndexOf('\n', matched.end - 2) + 1;
    // Every line of the run but its last.
    const lines = matched.lines - 1;
    // What the run's first line does (a top-level item closes every open block), without its tasks.
    this.count = this.ready;
    this.closeUnmatched(0);
    this.resumeAt(last, line + lines);
    return lines;
  }

  /**
   * Pass over bare task lines that continue a settled paragraph: each is
   * text (its first character starts no block), so the paragraph goes on
   * past all of them, and it is known not to become a heading, so none
   * waits for what follows.
   */
  private skipBareRun(run: RegExp): number {
    const line = this.lineNo + 1;
    const matched = matchRun(run, this.src, this.nextLineStart);
    if (matched === null) return 0;
    this.count = this.ready = this.head = 0;
    this.resumeAt(matched.end, line + matched.lines);
    return matched.lines;
  }

  protected override onParagraphLine(content: number): void {
    const src = this.src;
    if (this.paraQuote || src.charCodeAt(content) !== 0x5b /* [ */) return;
    // A marker ends at the first `]`, on this line.
    const close = this.closeBracketFrom(content + 1);
    if (close >= this.lineEnd) return;
    const time = canonicalClaimTime(src, content);
    const status = time >= 0 ? (endsToken(src, close + 1) ? 'claimed' : null) : markerStatus(src, content, close);
    if (status === null) return;
    const k = this.count++;
    this.bLine[k] = this.lineNo;
    this.bStart[k] = this.lineStart;
    this.bEnd[k] = this.lineEnd;
    this.bMarker[k] = content;
    this.bClose[k] = close;
    this.bTime[k] = time;
    this.bStatus[k] = status;
    this.bSection[k] = this.current;
    if (this.paraSettled) this.ready = this.count;
  }

  protected override onParagraphEnd(defLines: number): void {
    this.paraSettled = false;
    // Lines taken by link reference definitions are not paragraph lines.
    if (defLines > 0) {
      const first = this.paraLine + defLines;
      let kept = this.ready;
      for (let i = this.ready; i < this.count; i++) {
        if (this.bLine[i]! < first) continue;
        this.bLine[kept] = this.bLine[i]!;
        this.bStart[kept] = this.bStart[i]!;
        this.bEnd[kept] = this.bEnd[i]!;
        this.bMarker[kept] = this.bMarker[i]!;
        this.bClose[kept] = this.bClose[i]!;
        this.bTime[kept] = this.bTime[i]!;
        this.bStatus[kept] = this.bStatus[i]!;
        this.bSection[kept] = this.bSection[i];
        kept++;
      }
      this.count = kept;
    }
    this.ready = this.count;
  }

  protected override onSetextHeading(line: number, start: number, content: number, level: number): void {
    this.paraSettled = false;
    this.count = this.ready;
    if (this.paraQuote) return;
    // A heading's lines join with a space, as a renderer shows a soft line break.
    const text = utf8(this.src, content, this.paraEnd)
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .join(' ')
      .trim();
    this.addHeading({ line, start, end: this.lineEnd, level, text });
  }

  protected override onAtxHeading(level: number, from: number, to: number): void {
    if (this.quoteDepth > 0) return;
    this.addHeading({ line: this.lineNo, start: this.lineStart, end: this.lineEnd, level, text: utf8(this.src, from, to).trim() });
  }

  /**
   * A heading starts a section, but inside a worktree section (see
   * worktreeOf) a deeper heading is a sub-heading of it: the section runs to
   * the next heading of its own level or higher, so its tasks keep their
   * worktree and their [⏰] chain across a `### Backend`.
   */
  private addHeading(h: Heading): void {
    this.headings.push(h);
    if (this.worktreeLevel > 0 && h.level > this.worktreeLevel) return;
    this.current = h.text;
    this.worktreeLevel = worktreeOf(h.text) === undefined ? 0 : h.level;
  }
}

/** Every task line of a byte string, in order. */
export function scanTasks(src: ByteString): TaskLine[] {
  const scanner = new TaskScanner(src);
  const out: TaskLine[] = [];
  for (let t = scanner.next(); t !== null; t = scanner.next()) out.push(t);
  return out;
}

/** The last run matched (see matchRun). */
let lastRun: { run: RegExp; src: ByteString; from: number; end: number; lines: number } | null = null;

/**
 * Where the run `run` matches from `from` ends, and how many lines it spans;
 * null when it matches nothing there. Between two claims a board changes by
 * a line or two, mostly past the run a claim passed over the time before: a
 * run whose bytes are those of the last one matched from the same place,
 * with the same pattern, is that run, so the match goes on from its end
 * instead of reading it all again. The pattern's lines are whole lines, each
 * matched on its own (see settledRun), so a run that starts with a known one
 * is that one and then what matches after it.
 */
function matchRun(run: RegExp, src: ByteString, from: number): { end: number; lines: number } | null {
  let end = from;
  let lines = 0;
  const known = lastRun;
  if (known !== null && known.run === run && known.from === from && known.end <= src.length && (known.src === src || src.slice(from, known.end) === known.src.slice(from, known.end))) {
    end = known.end;
    lines = known.lines;
  }
  run.lastIndex = end;
  if (run.test(src)) {
    for (let i = src.indexOf('\n', end); i >= 0 && i < run.lastIndex; i = src.indexOf('\n', i + 1)) lines++;
    end = run.lastIndex;
  }
  if (end === from) return null;
  lastRun = { run, src, from, end, lines };
  return { end, lines };
}
