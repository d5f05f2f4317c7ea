import type { ByteString } from './bytes.js';

/**
 * CommonMark link reference definitions (spec 0.31, §4.7) at the start of a
 * paragraph. They are taken out of the paragraph, so their lines are never
 * tasks, and a paragraph made only of them cannot become a setext heading.
 */

const isBlank = (c: number) => c === 0x20 || c === 0x09;
const isPunct = (c: number) => (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);

/**
 * How many leading lines of a paragraph are link reference definitions. `text`
 * is the paragraph's content, one line per `\n`, leading whitespace removed.
 * `remark`: allow an unescaped `(` in a (title), as remark does.
 */
export function linkDefLines(text: ByteString, remark = false): number {
  let pos = 0;
  while (pos < text.length && text.charCodeAt(pos) === 0x5b /* [ */) {
    const end = definitionEnd(text, pos, remark);
    if (end < 0) break;
    pos = end;
  }
  if (pos === 0) return 0;
  let lines = pos >= text.length ? 1 : 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** Skip spaces and tabs, at most one line ending, then spaces and tabs. */
function skipSpace(s: string, i: number): number {
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) === 0x0a) i++;
  while (i < s.length && isBlank(s.charCodeAt(i))) i++;
  return i;
}

/** Just past the line of a definition starting at `pos` (a `[`), or -1 if none starts there. */
function definitionEnd(s: string, pos: number, remark: boolean): number {
  // Label: 1–999 characters, no unescaped brackets, not all whitespace.
  let i = pos + 1;
  let solid = false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5d /* ] */) break;
    if (c === 0x5b || i - pos > 999) return -1;
    if (c === 0x5c /* \ */ && isPunct(s.charCodeAt(i + 1))) i++;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a) solid = true;
  }
  if (i >= s.length || !solid || s.charCodeAt(i + 1) !== 0x3a /* : */) return -1;
  i = destinationEnd(s, skipSpace(s, i + 2));
  if (i < 0) return -1;
  // Without a title the destination must end its line.
  let eol = i;
  while (eol < s.length && isBlank(s.charCodeAt(eol))) eol++;
  const plain = eol >= s.length ? s.length : s.charCodeAt(eol) === 0x0a ? eol + 1 : -1;
  const t = skipSpace(s, i);
  if (t > i && t < s.length) {
    const after = titleEnd(s, t, remark);
    if (after > 0) {
      let e = after;
      while (e < s.length && isBlank(s.charCodeAt(e))) e++;
      if (e >= s.length) return s.length;
      if (s.charCodeAt(e) === 0x0a) return e + 1;
    }
  }
  return plain;
}

/** Just past a link destination starting at `i`, or -1. */
function destinationEnd(s: string, i: number): number {
  if (s.charCodeAt(i) === 0x3c /* < */) {
    for (let j = i + 1; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 0x3e) return j + 1;
      if (c === 0x0a || c === 0x3c) return -1;
      if (c === 0x5c && isPunct(s.charCodeAt(j + 1))) j++;
    }
    return -1;
  }
  let depth = 0;
  let j = i;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c <= 0x20 || c === 0x7f) break;
    if (c === 0x5c && isPunct(s.charCodeAt(j + 1))) j++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && depth-- === 0) break;
  }
  return j > i && depth <= 0 ? j : -1;
}

/** Just past a link title ("…", '…' or (…)) starting at `i`, or -1. */
function titleEnd(s: string, i: number, remark: boolean): number {
  const open = s.charCodeAt(i);
  const close = open === 0x28 ? 0x29 : open;
  if (open !== 0x22 && open !== 0x27 && open !== 0x28) return -1;
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === close) return j + 1;
    if (c === 0x28 && open === 0x28 && !remark) return -1;
    if (c === 0x5c && isPunct(s.charCodeAt(j + 1))) j++;
  }
  return -1;
}

/** Could a definition start at `pos` (a `[`) on a line ending at `end`? Rules out task markers cheaply. */
export function mayStartDefinition(src: ByteString, pos: number, end: number): boolean {
  for (let i = pos + 1; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x5b) return false;
    else if (c === 0x5d) return src.charCodeAt(i + 1) === 0x3a;
  }
  // The label may go on past this line.
  return true;
}
