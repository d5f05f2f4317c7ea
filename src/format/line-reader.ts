import type { ByteString } from './bytes.js';

/**
 * Walks a byte string line by line and tracks, within the current line, an
 * offset and a column the way CommonMark counts them (tabs stop every 4
 * columns, and a tab may be half consumed by a container's indentation).
 */
export class LineReader {
  protected lineNo = 0;
  /** Offset where the current line starts, and where it ends before its line ending. */
  protected lineStart = 0;
  protected lineEnd = 0;
  // Read position within the line: offset, column, and whether the tab at `off` is partly used.
  protected off = 0;
  protected col = 0;
  protected partialTab = false;
  // The next non-blank character from `off`: its offset, its column, columns of indentation before it.
  protected nns = 0;
  protected nnsCol = 0;
  protected indent = 0;
  /** Only spaces and tabs remain on the line. */
  protected blank = false;

  private pos = -1; // start of the next line; -1 until a BOM and front matter are skipped
  private nl = -1; // the next \n and \r at or after pos, so each byte is searched once
  private cr = -1;

  constructor(readonly src: ByteString) {}

  /** Move to the next line; false at the end of the document. */
  protected nextLine(): boolean {
    if (this.pos < 0) this.pos = this.skipPreamble();
    const src = this.src;
    const pos = this.pos;
    if (pos >= src.length) return false;
    if (this.nl < pos) this.nl = indexOr(src, '\n', pos);
    if (this.cr < pos) this.cr = indexOr(src, '\r', pos);
    // A line ends at \n, \r\n or a lone \r, as in CommonMark.
    const end = this.cr < this.nl ? this.cr : this.nl;
    this.pos = nextLineAt(src, end);
    this.lineStart = this.off = pos;
    this.lineEnd = end;
    this.lineNo++;
    this.col = 0;
    this.partialTab = false;
    return true;
  }

  /** Where the next line starts (once a line has been read). */
  protected get nextLineStart(): number {
    return this.pos;
  }

  /** Go on reading at `pos`, the start of line number `line`, as if every line before it had been read. */
  protected resumeAt(pos: number, line: number): void {
    this.pos = pos;
    this.lineNo = line - 1;
  }

  /** Skip a UTF-8 BOM, then YAML front matter: a first line `---` up to a line `---` or `...`. */
  private skipPreamble(): number {
    const src = this.src;
    const start = src.startsWith('\xEF\xBB\xBF') ? 3 : 0;
    if (!src.startsWith('---', start) || lineEndAt(src, start) !== start + 3) return start;
    let line = 1;
    for (let s = nextLineAt(src, start + 3); s < src.length; ) {
      const end = lineEndAt(src, s);
      line++;
      if (end - s === 3 && (src.startsWith('---', s) || src.startsWith('...', s))) {
        this.lineNo = line;
        return nextLineAt(src, end);
      }
      s = nextLineAt(src, end);
    }
    return start;
  }

  protected findNextNonspace(): void {
    const src = this.src;
    let i = this.off;
    let col = this.col;
    for (; i < this.lineEnd; i++) {
      const c = src.charCodeAt(i);
      if (c === 0x20) col++;
      else if (c === 0x09) col += 4 - (col % 4);
      else break;
    }
    this.nns = i;
    this.nnsCol = col;
    this.indent = col - this.col;
    this.blank = i === this.lineEnd;
  }

  protected advanceNextNonspace(): void {
    this.off = this.nns;
    this.col = this.nnsCol;
    this.partialTab = false;
  }

  /** Move `count` characters on, or `count` columns when `columns` (then a tab may be half used). */
  protected advanceOffset(count: number, columns: boolean): void {
    const src = this.src;
    while (count > 0 && this.off < this.lineEnd) {
      if (src.charCodeAt(this.off) === 0x09) {
        const toTab = 4 - (this.col % 4);
        this.partialTab = columns && toTab > count;
        this.col += this.partialTab ? count : toTab;
        if (!this.partialTab) this.off++;
        count -= columns ? toTab : 1;
      } else {
        this.partialTab = false;
        this.off++;
        this.col++;
        count--;
      }
    }
  }
}

function indexOr(src: ByteString, ch: string, from: number): number {
  const i = src.indexOf(ch, from);
  return i < 0 ? src.length : i;
}

function lineEndAt(src: ByteString, from: number): number {
  return Math.min(indexOr(src, '\n', from), indexOr(src, '\r', from));
}

/** Where the line after one ending at `end` starts. */
function nextLineAt(src: ByteString, end: number): number {
  return src.charCodeAt(end) === 0x0d && src.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
}
