import {
  atxLevel,
  atxText,
  closesFence,
  fenceLength,
  htmlBlockEnds,
  htmlBlockKind,
  isBlank,
  isSetextUnderline,
  isThematicBreak,
  listMarkerLength,
} from './block-starts.js';
import { LineReader } from './line-reader.js';
import { linkDefLines, mayStartDefinition } from './link-def.js';

/**
 * A one-pass reader of CommonMark block structure (spec 0.31, appendix "A
 * parsing strategy"). It keeps only what decides where paragraphs are: the
 * open block quotes and list items, and the one open leaf block. Subclasses
 * hear about paragraph lines and headings through the hooks.
 */

// The open leaf block.
export const NONE = 0;
export const PARA = 1;
export const FENCE = 2;
const CODE = 3;
const HTML = 4;
// Container kinds.
const QUOTE = 1;
export const ITEM = 2;

// First characters of every block start but a paragraph's; a line starting otherwise is text.
const SPECIAL = new Uint8Array(128);
for (const c of '#`~*+_=<>-0123456789') SPECIAL[c.charCodeAt(0)] = 1;

/** Can a block other than a paragraph start with this character? */
export const mayStartBlock = (c: number): boolean => c < 128 && SPECIAL[c] === 1;

export abstract class BlockReader extends LineReader {
  protected done = false;
  /** How many of the open containers are block quotes. */
  protected quoteDepth = 0;
  /** The open paragraph: inside a block quote? its first line, the end of its last line. */
  protected paraQuote = false;
  protected paraLine = 0;
  protected paraEnd = 0;
  /**
   * Read as remark (micromark 4) does where it departs from the CommonMark
   * spec, since remark is the reference the project promises to agree with:
   * the line that ends indented code counts as interrupting a paragraph, so do
   * list items nested on an interrupting line, and only a bare `1` may start
   * an interrupting list (micromark PR #228). Kind 7 HTML may start on a lazy
   * line, and a link title in parentheses may hold a `(`. False reads by the
   * spec (a subclass may set it; the tests pin both answers).
   */
  protected readonly remarkQuirks: boolean = true;

  // Open containers, outermost first: kind, content indent (list items, in columns past the
  // container before), no child yet.
  protected depth = 0;
  protected readonly kind: number[] = [];
  protected readonly need: number[] = [];
  protected readonly empty: boolean[] = [];
  protected leaf = NONE;
  private fenceChar = 0;
  private fenceLen = 0;
  private htmlKind = 0;
  private codeLazy = false; // the open indented code began on a lazy line (see remarkQuirks)
  private paraStart = 0;
  private paraContent = 0;
  private paraLines = 0;
  /** The open paragraph's lines are recorded while they may still be link reference definitions. */
  protected paraDefs = false;
  private readonly defStart: number[] = [];
  private readonly defContent: number[] = [];
  private readonly defEnd: number[] = [];
  private close = -1; // see closeBracketFrom

  protected abstract onParagraphLine(content: number): void;
  /** The paragraph ended; its first `defLines` lines were link reference definitions. */
  protected abstract onParagraphEnd(defLines: number): void;
  /** The open paragraph became a setext heading from `line` (at `start`, text from `content`). */
  protected abstract onSetextHeading(line: number, start: number, content: number, level: number): void;
  protected abstract onAtxHeading(level: number, from: number, to: number): void;

  /** Read one more line, or finish the document. */
  protected step(): void {
    if (this.nextLine()) return this.readLine();
    this.closeUnmatched(0);
    this.done = true;
  }

  protected readLine(): void {
    const src = this.src;
    // 1. Which open containers does this line continue?
    let matched = 0;
    for (; matched < this.depth; matched++) {
      this.findNextNonspace();
      if (this.kind[matched] === QUOTE) {
        if (this.indent >= 4 || src.charCodeAt(this.nns) !== 0x3e /* > */) break;
        this.skipQuoteMarker();
      } else if (this.blank) {
        // A list item can start with at most one blank line.
        if (this.empty[matched]) break;
        this.advanceNextNonspace();
      } else if (this.indent >= this.need[matched]!) {
        this.advanceOffset(this.need[matched]!, true);
      } else break;
    }
    const all = matched === this.depth;
    this.findNextNonspace();
    const endsCode = all && this.leaf === CODE;
    if (all && this.leaf >= FENCE && this.continueLeaf()) return;

    // 2. New block starts. `paraCont`: the line may yet continue the open paragraph.
    let paraCont = all && this.leaf === PARA && !this.blank;
    let interrupt = this.remarkQuirks ? paraCont || (endsCode && !this.codeLazy) : paraCont;
    for (;;) {
      const c = src.charCodeAt(this.nns);
      if (this.indent >= 4) {
        // Indented code cannot interrupt a paragraph, lazy or not.
        if (this.blank || this.leaf === PARA) break;
        this.codeLazy = matched < this.depth;
        this.startBlock(matched);
        this.leaf = CODE;
        return;
      }
      if (!(c < 128 && SPECIAL[c] === 1)) break;
      if (c === 0x3e) {
        this.open(matched, QUOTE, 0);
        this.skipQuoteMarker();
      } else {
        if (c === 0x23 && this.atxHeading(matched)) return;
        if ((c === 0x60 || c === 0x7e) && this.fence(matched)) return;
        if (c === 0x3c && this.htmlBlock(matched)) return;
        if (paraCont && (c === 0x3d || c === 0x2d) && this.setextHeading()) return;
        if ((c === 0x2a || c === 0x2d || c === 0x5f) && isThematicBreak(src, this.nns, this.lineEnd)) {
          this.startBlock(matched);
          return;
        }
        if (!this.listItem(matched, interrupt)) break;
      }
      matched = this.depth;
      paraCont = false;
      interrupt &&= this.remarkQuirks;
      this.findNextNonspace();
    }

    // 3. The rest of the line is text: more of the open paragraph (lazily, if
    // some containers did not continue), or the start of a new one.
    if (this.leaf === PARA && !this.blank) return this.addParaLine();
    this.closeUnmatched(matched);
    if (!this.blank) this.openParagraph(matched);
  }

  protected openParagraph(matched: number): void {
    const src = this.src;
    this.startBlock(matched);
    this.leaf = PARA;
    this.paraQuote = this.quoteDepth > 0;
    this.paraLine = this.lineNo;
    this.paraStart = this.lineStart;
    this.paraContent = this.nns;
    this.paraLines = 0;
    this.paraDefs = src.charCodeAt(this.nns) === 0x5b && this.mayStartDefinition(this.nns);
    if (this.paraDefs) this.defStart.length = this.defContent.length = this.defEnd.length = 0;
    this.addParaLine();
  }

  /**
   * mayStartDefinition, answered from the first `]` on the line where that
   * settles it: a task marker's `]` is followed by a blank, never by `:`.
   */
  private mayStartDefinition(pos: number): boolean {
    const close = this.closeBracketFrom(pos + 1);
    if (close < this.lineEnd && this.src.charCodeAt(close - 1) !== 0x5c /* \ */ && this.src.charCodeAt(close + 1) !== 0x3a) return false;
    return mayStartDefinition(this.src, pos, this.lineEnd);
  }

  /**
   * The first `]` at or after `from` (the document's length if none). Calls
   * come with growing `from`, so each byte is searched once however many
   * lines hold a `[` and no `]`.
   */
  protected closeBracketFrom(from: number): number {
    if (this.close < from) {
      const i = this.src.indexOf(']', from);
      this.close = i < 0 ? this.src.length : i;
    }
    return this.close;
  }

  protected addParaLine(): void {
    this.paraLines++;
    this.paraEnd = this.lineEnd;
    if (this.paraDefs) {
      this.defStart.push(this.lineStart);
      this.defContent.push(this.nns);
      this.defEnd.push(this.lineEnd);
    }
    this.onParagraphLine(this.nns);
  }

  /** How many leading lines of the open paragraph are link reference definitions. */
  private defLines(): number {
    if (!this.paraDefs) return 0;
    let text = '';
    for (let i = 0; i < this.defStart.length; i++) text += (i > 0 ? '\n' : '') + this.src.slice(this.defContent[i], this.defEnd[i]);
    return linkDefLines(text, this.remarkQuirks);
  }

  /** Continue an open fence, indented code or HTML block; false if the line is not theirs. */
  private continueLeaf(): boolean {
    if (this.leaf === FENCE) {
      if (this.indent < 4 && closesFence(this.src, this.nns, this.lineEnd, this.fenceChar, this.fenceLen)) this.leaf = NONE;
      return true;
    }
    if (this.leaf === CODE) {
      // remark ends code begun on a lazy line with that line; the next code line starts anew.
      if (this.indent >= 4 && !this.blank) this.codeLazy = false;
      if (this.indent >= 4 || this.blank) return true;
      this.leaf = NONE;
      return false;
    }
    if (this.blank ? this.htmlKind >= 6 : this.htmlKind <= 5 && htmlBlockEnds(this.src, this.htmlKind, this.off, this.lineEnd)) this.leaf = NONE;
    return true;
  }

  protected atxHeading(matched: number): boolean {
    const level = atxLevel(this.src, this.nns, this.lineEnd);
    if (level === 0) return false;
    this.startBlock(matched);
    const [from, to] = atxText(this.src, this.nns, this.lineEnd, level);
    this.onAtxHeading(level, from, to);
    return true;
  }

  private fence(matched: number): boolean {
    const len = fenceLength(this.src, this.nns, this.lineEnd);
    if (len === 0) return false;
    this.startBlock(matched);
    this.leaf = FENCE;
    this.fenceChar = this.src.charCodeAt(this.nns);
    this.fenceLen = len;
    return true;
  }

  private htmlBlock(matched: number): boolean {
    const kind = htmlBlockKind(this.src, this.nns, this.lineEnd);
    if (kind === 0) return false;
    // Kind 7 cannot interrupt a paragraph, not even a lazy one.
    if (kind === 7 && this.leaf === PARA) {
      if (!this.remarkQuirks || matched === this.depth) return false;
      matched = this.depth;
    }
    this.startBlock(matched);
    this.leaf = HTML;
    this.htmlKind = kind;
    if (kind <= 5 && htmlBlockEnds(this.src, kind, this.off, this.lineEnd)) this.leaf = NONE;
    return true;
  }

  private setextHeading(): boolean {
    if (!isSetextUnderline(this.src, this.nns, this.lineEnd)) return false;
    // A paragraph of only link reference definitions has no text to make a heading of.
    const k = this.defLines();
    if (k === this.paraLines) return false;
    this.leaf = NONE;
    const level = this.src.charCodeAt(this.nns) === 0x3d ? 1 : 2;
    if (k === 0) this.onSetextHeading(this.paraLine, this.paraStart, this.paraContent, level);
    else this.onSetextHeading(this.paraLine + k, this.defStart[k]!, this.defContent[k]!, level);
    return true;
  }

  private listItem(matched: number, interrupt: boolean): boolean {
    const end = this.lineEnd;
    const len = listMarkerLength(this.src, this.nns, end, interrupt, this.remarkQuirks);
    if (len === 0) return false;
    const markerIndent = this.indent;
    this.advanceNextNonspace();
    this.advanceOffset(len, true);
    const col = this.col;
    const off = this.off;
    do this.advanceOffset(1, true);
    while (this.col - col < 5 && this.off < end && isBlank(this.src.charCodeAt(this.off)));
    let padding = len + this.col - col;
    // 1–4 columns after the marker set the content indent; more means indented code after one.
    if (this.col - col >= 5 || this.col === col || this.off >= end) {
      padding = len + 1;
      this.col = col;
      this.off = off;
      this.partialTab = false;
      if (off < end && isBlank(this.src.charCodeAt(off))) this.advanceOffset(1, true);
    }
    this.open(matched, ITEM, markerIndent + padding);
    return true;
  }

  private skipQuoteMarker(): void {
    this.advanceNextNonspace();
    this.advanceOffset(1, false);
    if (this.off < this.lineEnd && isBlank(this.src.charCodeAt(this.off))) this.advanceOffset(1, true);
  }

  protected open(matched: number, kind: number, need: number): void {
    this.startBlock(matched);
    this.kind[this.depth] = kind;
    this.need[this.depth] = need;
    this.empty[this.depth] = true;
    this.depth++;
    if (kind === QUOTE) this.quoteDepth++;
  }

  /** A block starts: close what the line did not continue and the open leaf; the container has a child now. */
  private startBlock(matched: number): void {
    this.closeUnmatched(matched);
    if (this.depth > 0) this.empty[this.depth - 1] = false;
  }

  protected closeUnmatched(matched: number): void {
    if (this.leaf === PARA) this.onParagraphEnd(this.defLines());
    this.leaf = NONE;
    for (; this.depth > matched; this.depth--) if (this.kind[this.depth - 1] === QUOTE) this.quoteDepth--;
  }
}
