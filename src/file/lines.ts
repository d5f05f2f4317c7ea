import type { ByteString } from '../format/bytes.js';
import { scanTasks } from '../format/scan.js';

/**
 * One line of a document as the merge sees it: its bytes split into the
 * content and the line ending, so that a change of line ending (or of the
 * final newline an editor adds) and a change of marker on the same line are
 * two changes, each kept, not one conflict.
 */
export interface Line {
  /** The line's bytes before its line ending. */
  content: ByteString;
  /** `\n`, `\r\n`, `\r`, or '' on a last line without one. */
  eol: ByteString;
  /** [start, end) of the status marker within `content`, when the line is a task line. */
  marker?: [number, number];
  /**
   * What the line is with its marker and line ending left out: two lines
   * with one key are the same line, whatever each side did to its marker.
   * A task line and a line that only looks like one never share a key.
   */
  key: string;
}

/** Split a document into lines (ending at `\n`, `\r\n` or a lone `\r`, as the scanner counts them) and mark its task lines. */
export function readLines(src: ByteString): Line[] {
  const lines: Line[] = [];
  const starts: number[] = [];
  let pos = 0;
  let nl = -2;
  let cr = -2;
  while (pos < src.length) {
    if (nl < pos && nl !== -1) nl = src.indexOf('\n', pos);
    if (cr < pos && cr !== -1) cr = src.indexOf('\r', pos);
    const end = Math.min(nl < 0 ? src.length : nl, cr < 0 ? src.length : cr);
    const next = end === src.length ? end : src.charCodeAt(end) === 0x0d && src.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
    const content = src.slice(pos, end);
    starts.push(pos);
    lines.push({ content, eol: src.slice(end, next), key: 'P' + content });
    pos = next;
  }
  for (const t of scanTasks(src)) {
    const line = lines[t.line - 1]!;
    const at = starts[t.line - 1]!;
    line.marker = [t.markerStart - at, t.marker.end - at];
    line.key = 'T' + line.content.slice(0, line.marker[0]) + '\0' + line.content.slice(line.marker[1]);
  }
  return lines;
}

export function markerOf(line: Line): ByteString {
  return line.marker ? line.content.slice(line.marker[0], line.marker[1]) : '';
}

export function sameBytes(a: Line, b: Line): boolean {
  return a.content === b.content && a.eol === b.eol;
}

export function joinLines(lines: readonly Line[]): ByteString {
  let out = '';
  for (const l of lines) out += l.content + l.eol;
  return out;
}

/**
 * Merge one line that both sides changed but kept the same (same key): the
 * marker and the line ending are merged on their own. Null when both sides
 * changed one of them, each its own way.
 */
export function mergeLine(base: Line, mine: Line, theirs: Line): Line | null {
  const marker = pick(markerOf(base), markerOf(mine), markerOf(theirs));
  const eol = pick(base.eol, mine.eol, theirs.eol);
  if (marker === null || eol === null) return null;
  if (!mine.marker) return { ...mine, eol };
  const [s, e] = mine.marker;
  const content = mine.content.slice(0, s) + marker + mine.content.slice(e);
  return { content, eol, marker: [s, s + marker.length], key: mine.key };
}

/** The three-way pick of one field: whichever side changed it, or their common value. */
function pick(base: string, mine: string, theirs: string): string | null {
  if (mine === base || mine === theirs) return theirs;
  if (theirs === base) return mine;
  return null;
}
