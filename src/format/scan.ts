import { utf8, type ByteString } from './bytes.js';
import { BlockReader } from './blocks.js';
import { parseMarker, type Marker } from './marker.js';

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
  /** Text of the nearest heading above, outside block quotes; undefined when there is none. */
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
 */
export class TaskScanner extends BlockReader {
  /** Every heading outside block quotes read so far. */
  readonly headings: Heading[] = [];
  private section: string | undefined = undefined;
  // Tasks in buf[head, ready) are final; buf[ready, …) wait for their paragraph to end.
  private readonly buf: TaskLine[] = [];
  private head = 0;
  private ready = 0;

  next(): TaskLine | null {
    while (this.head >= this.ready) {
      if (this.done) return null;
      this.step();
    }
    const task = this.buf[this.head++]!;
    // Drop handed-out tasks now and then, not on every call: truncating an array is not free.
    if (this.head === this.buf.length && this.head >= 1024) this.buf.length = this.head = this.ready = 0;
    return task;
  }

  protected override onParagraphLine(content: number): void {
    const src = this.src;
    if (this.paraQuote || src.charCodeAt(content) !== 0x5b /* [ */) return;
    // parseMarker looks for the `]` past the line; stopping at the line's end keeps many `[` lines linear.
    let close = content + 1;
    while (close < this.lineEnd && src.charCodeAt(close) !== 0x5d) close++;
    if (close === this.lineEnd) return;
    const marker = parseMarker(src, content);
    if (marker === null) return;
    this.buf.push({ line: this.lineNo, start: this.lineStart, end: this.lineEnd, markerStart: content, marker, section: this.section });
  }

  protected override onParagraphEnd(defLines: number): void {
    // Lines taken by link reference definitions are not paragraph lines.
    if (defLines > 0) {
      const first = this.paraLine + defLines;
      let kept = this.ready;
      for (let i = this.ready; i < this.buf.length; i++) if (this.buf[i]!.line >= first) this.buf[kept++] = this.buf[i]!;
      this.buf.length = kept;
    }
    this.ready = this.buf.length;
  }

  protected override onSetextHeading(line: number, start: number, content: number, level: number): void {
    this.buf.length = this.ready;
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

  private addHeading(h: Heading): void {
    this.headings.push(h);
    this.section = h.text;
  }
}

/** Every task line of a byte string, in order. */
export function scanTasks(src: ByteString): TaskLine[] {
  const scanner = new TaskScanner(src);
  const out: TaskLine[] = [];
  for (let t = scanner.next(); t !== null; t = scanner.next()) out.push(t);
  return out;
}

