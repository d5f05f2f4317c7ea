import { atxLevel } from './block-starts.js';
import { BlockReader, FENCE, ITEM, mayStartBlock, PARA } from './blocks.js';

/**
 * The lines a board is made of — blank lines, ATX headings, list items
 * whose content is text (`- [ ] task`, `  1. [x] done`) and text lines —
 * read straight from their bytes, with the state changes the general
 * reading makes for them. Any other line, or any line while a block quote,
 * a code block or an HTML block is open, goes to the general reading, so the
 * two always agree (the differential tests hold both to remark).
 *
 * Only spaces count as indentation here: a tab's columns depend on where it
 * stands, and that is the general reading's business.
 */
export abstract class FastBlockReader extends BlockReader {
  /** False sends every line to the general reading (the tests compare the two). */
  protected readonly fastLines: boolean = true;

  protected override readLine(): void {
    if (!this.fastLines || this.quoteDepth > 0 || this.leaf >= FENCE || !this.readPlainLine()) super.readLine();
  }

  /** Read the line if it is one of the plain kinds; false (nothing changed) if not. */
  private readPlainLine(): boolean {
    const src = this.src;
    const end = this.lineEnd;
    let i = this.lineStart;
    while (i < end && src.charCodeAt(i) === 0x20) i++;
    if (i === end) return this.blankLine();
    // The open list items this indentation continues (all containers are items: no quote is open).
    let indent = i - this.lineStart;
    let matched = 0;
    while (matched < this.depth && indent >= this.need[matched]!) indent -= this.need[matched++]!;
    // Four columns more make indented code or a continuation: the general reading's.
    if (indent >= 4) return false;
    const c = src.charCodeAt(i);
    if (!mayStartBlock(c)) {
      if (c === 0x09) return false;
      this.nns = i;
      // More of the open paragraph (lazily when not every item continues), or a new one.
      if (this.leaf === PARA) this.addParaLine();
      else {
        this.closeUnmatched(matched);
        this.openParagraph(matched);
      }
      return true;
    }
    if (c === 0x23 /* # */) {
      if (atxLevel(src, i, end) === 0) return false;
      this.nns = i;
      return this.atxHeading(matched);
    }
    let len: number;
    if (c === 0x2d || c === 0x2a || c === 0x2b) len = 1;
    else if (c >= 0x30 && c <= 0x39) {
      // An ordered item that would interrupt a paragraph has conditions of its own.
      if (matched === this.depth && this.leaf === PARA) return false;
      let j = i + 1;
      while (j < end && j - i < 10 && isDigit(src.charCodeAt(j))) j++;
      const d = src.charCodeAt(j);
      if (j - i > 9 || (d !== 0x2e && d !== 0x29)) return false;
      len = j - i + 1;
    } else return false;
    // 1–4 spaces after the marker, then text that starts no block of its own. Such an item
    // starts whatever is open (a thematic break or setext underline needs only the marker's
    // character and blanks), and its content indent is the marker's width plus the spaces.
    const after = i + len;
    let content = after;
    while (content < end && content - after < 5 && src.charCodeAt(content) === 0x20) content++;
    if (content === after || content - after > 4 || content === end) return false;
    const x = src.charCodeAt(content);
    if (x === 0x09 || x === 0x20 || mayStartBlock(x)) return false;
    this.open(matched, ITEM, indent + content - i);
    this.nns = content;
    this.openParagraph(this.depth);
    return true;
  }

  /** A blank line continues the list items that have content already; it closes the rest and the paragraph. */
  private blankLine(): boolean {
    let matched = 0;
    while (matched < this.depth && !this.empty[matched]) matched++;
    this.closeUnmatched(matched);
    return true;
  }
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
