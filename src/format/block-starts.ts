import type { ByteString } from './bytes.js';

/**
 * Start (and end) conditions of CommonMark blocks (spec 0.31): list markers,
 * ATX and setext headings, thematic breaks, code fences and the seven kinds
 * of HTML block. Each looks at one line, from its first non-blank character
 * `i` to the line's end `end`.
 */

export const isBlank = (c: number) => c === 0x20 || c === 0x09;

/** Skip spaces and tabs from `i`, not past `end`. */
export function skipBlank(src: ByteString, i: number, end: number): number {
  while (i < end && isBlank(src.charCodeAt(i))) i++;
  return i;
}

function trimEnd(src: ByteString, from: number, to: number): number {
  while (to > from && isBlank(src.charCodeAt(to - 1))) to--;
  return to;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * The length of a list marker (`-`, `+`, `*`, or 1–9 digits and `.` or `)`)
 * at `i`, followed by a blank or the line's end; 0 if none. One that would
 * interrupt a paragraph must start a list at 1 (remark: be a bare `1`) and
 * have content after it.
 */
export function listMarkerLength(src: ByteString, i: number, end: number, interrupt: boolean, remark: boolean): number {
  const c = src.charCodeAt(i);
  let len = 1;
  if (isDigit(c)) {
    let j = i;
    while (j < end && j - i < 10 && isDigit(src.charCodeAt(j))) j++;
    const d = src.charCodeAt(j);
    if (j - i > 9 || j >= end || (d !== 0x2e && d !== 0x29)) return 0;
    if (interrupt && (remark ? j - i > 1 || c !== 0x31 : Number(src.slice(i, j)) !== 1)) return 0;
    len = j - i + 1;
  } else if (c !== 0x2d && c !== 0x2a && c !== 0x2b) {
    return 0;
  }
  if (i + len < end && !isBlank(src.charCodeAt(i + len))) return 0;
  return interrupt && skipBlank(src, i + len, end) === end ? 0 : len;
}

/** The level (1–6) of an ATX heading opening at `i`, or 0. */
export function atxLevel(src: ByteString, i: number, end: number): number {
  let j = i;
  while (j < end && src.charCodeAt(j) === 0x23 /* # */) j++;
  return j - i <= 6 && (j === end || isBlank(src.charCodeAt(j))) ? j - i : 0;
}

/** Where an ATX heading's text lies, [from, to): blanks and a closing run of #s left out. */
export function atxText(src: ByteString, i: number, end: number, level: number): [number, number] {
  const from = skipBlank(src, i + level, end);
  let to = trimEnd(src, from, end);
  let j = to;
  while (j > from && src.charCodeAt(j - 1) === 0x23) j--;
  // The closing run counts only after a blank (or when it is all there is): `# C#` keeps its #.
  if (j < to && (j === from || isBlank(src.charCodeAt(j - 1)))) to = trimEnd(src, from, j);
  return [from, to];
}

/** The length of a code fence (3+ backticks or tildes) opening at `i`, or 0. */
export function fenceLength(src: ByteString, i: number, end: number): number {
  const c = src.charCodeAt(i);
  let j = i;
  while (j < end && src.charCodeAt(j) === c) j++;
  if (j - i < 3) return 0;
  // A backtick fence's info string may not hold a backtick (it would be inline code).
  if (c === 0x60) for (let k = j; k < end; k++) if (src.charCodeAt(k) === 0x60) return 0;
  return j - i;
}

/** Does the line close a fence of `len` characters `char`? */
export function closesFence(src: ByteString, i: number, end: number, char: number, len: number): boolean {
  let j = i;
  while (j < end && src.charCodeAt(j) === char) j++;
  return j - i >= len && skipBlank(src, j, end) === end;
}

/** Three or more of one of `*`, `-`, `_`, and nothing else but blanks. */
export function isThematicBreak(src: ByteString, i: number, end: number): boolean {
  const c = src.charCodeAt(i);
  let n = 0;
  for (let j = i; j < end; j++) {
    const d = src.charCodeAt(j);
    if (d === c) n++;
    else if (!isBlank(d)) return false;
  }
  return n >= 3;
}

/** A run of `=` or of `-`, then only blanks. */
export function isSetextUnderline(src: ByteString, i: number, end: number): boolean {
  const c = src.charCodeAt(i);
  let j = i;
  while (j < end && src.charCodeAt(j) === c) j++;
  return skipBlank(src, j, end) === end;
}

// Kind 1: their content may hold blank lines, so only the closing tag ends them.
const RAW = new Set(['script', 'pre', 'style', 'textarea']);

// Kind 6: block-level tag names, ended by a blank line.
const BLOCK = new Set(
  ('address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt ' +
    'fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link ' +
    'main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead ' +
    'title tr track ul').split(' '),
);

const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** End of a tag name (letter, then letters, digits, `-`) starting at `i`, or `i` if none. */
function tagNameEnd(src: ByteString, i: number, end: number): number {
  if (i >= end || !isAlpha(src.charCodeAt(i))) return i;
  let j = i + 1;
  while (j < end) {
    const c = src.charCodeAt(j);
    if (!isAlpha(c) && !isDigit(c) && c !== 0x2d) break;
    j++;
  }
  return j;
}

/**
 * The kind (1–7) of HTML block that starts at `pos`, which holds a `<`, on a
 * line ending at `end`; 0 when none does. The caller enforces that kind 7
 * cannot interrupt a paragraph.
 */
export function htmlBlockKind(src: ByteString, pos: number, end: number): number {
  const c1 = src.charCodeAt(pos + 1);
  if (c1 === 0x21 /* ! */) {
    if (src.startsWith('<!--', pos)) return 2;
    if (src.startsWith('<![CDATA[', pos)) return 5;
    return pos + 2 < end && isAlpha(src.charCodeAt(pos + 2)) ? 4 : 0;
  }
  if (c1 === 0x3f /* ? */) return 3;
  const closing = c1 === 0x2f; /* / */
  const nameStart = closing ? pos + 2 : pos + 1;
  const nameEnd = tagNameEnd(src, nameStart, end);
  if (nameEnd === nameStart) return 0;
  const name = src.slice(nameStart, nameEnd).toLowerCase();
  const after = nameEnd < end ? src.charCodeAt(nameEnd) : -1;
  if (!closing && RAW.has(name) && (after === -1 || after === 0x3e || isBlank(after))) return 1;
  if (BLOCK.has(name)) {
    if (after === -1 || after === 0x3e || isBlank(after)) return 6;
    if (after === 0x2f && src.charCodeAt(nameEnd + 1) === 0x3e && nameEnd + 1 < end) return 6;
  }
  const tagEnd = closing ? closingTagEnd(src, nameEnd, end) : openTagEnd(src, nameEnd, end);
  return tagEnd > 0 && skipBlank(src, tagEnd, end) === end ? 7 : 0;
}

/** Just past the `>` of a closing tag whose name ends at `i`, or -1. */
function closingTagEnd(src: ByteString, i: number, end: number): number {
  i = skipBlank(src, i, end);
  return i < end && src.charCodeAt(i) === 0x3e ? i + 1 : -1;
}

/** Just past the `>` of an open tag (attributes, optional `/`) whose name ends at `i`, or -1. */
function openTagEnd(src: ByteString, i: number, end: number): number {
  for (;;) {
    const ws = skipBlank(src, i, end);
    if (ws >= end) return -1;
    const c = src.charCodeAt(ws);
    if (c === 0x3e) return ws + 1;
    if (c === 0x2f) return ws + 1 < end && src.charCodeAt(ws + 1) === 0x3e ? ws + 2 : -1;
    // An attribute needs whitespace before it.
    if (ws === i || !(isAlpha(c) || c === 0x5f || c === 0x3a)) return -1;
    let j = ws + 1;
    while (j < end) {
      const d = src.charCodeAt(j);
      if (!(isAlpha(d) || isDigit(d) || d === 0x5f || d === 0x2e || d === 0x3a || d === 0x2d)) break;
      j++;
    }
    const eq = skipBlank(src, j, end);
    if (eq < end && src.charCodeAt(eq) === 0x3d /* = */) {
      j = attributeValueEnd(src, skipBlank(src, eq + 1, end), end);
      if (j < 0) return -1;
    }
    i = j;
  }
}

/** Just past an attribute value (unquoted, '…' or "…") starting at `i`, or -1. */
function attributeValueEnd(src: ByteString, i: number, end: number): number {
  if (i >= end) return -1;
  const q = src.charCodeAt(i);
  if (q === 0x22 || q === 0x27) {
    const close = src.indexOf(q === 0x22 ? '"' : "'", i + 1);
    return close >= 0 && close < end ? close + 1 : -1;
  }
  let j = i;
  while (j < end) {
    const c = src.charCodeAt(j);
    // Unquoted values stop at whitespace and may not hold " ' = < > or `.
    if (isBlank(c) || c === 0x22 || c === 0x27 || c === 0x3d || c === 0x3c || c === 0x3e || c === 0x60) break;
    j++;
  }
  return j > i ? j : -1;
}

const ENDS = ['', '', '-->', '?>', '>', ']]>'];

/** Does the line [pos, end) meet the end condition of an HTML block of kind 1–5? */
export function htmlBlockEnds(src: ByteString, kind: number, pos: number, end: number): boolean {
  const token = ENDS[kind] ?? '';
  const first = kind === 1 ? 0x3c : token.charCodeAt(0);
  // A bounded scan: indexOf could run far past the line on every line of a long comment.
  for (let i = pos; i < end; i++) {
    if (src.charCodeAt(i) !== first) continue;
    if (kind !== 1) {
      if (i + token.length <= end && src.startsWith(token, i)) return true;
    } else if (src.charCodeAt(i + 1) === 0x2f) {
      const nameEnd = tagNameEnd(src, i + 2, end);
      if (nameEnd < end && src.charCodeAt(nameEnd) === 0x3e && RAW.has(src.slice(i + 2, nameEnd).toLowerCase())) return true;
    }
  }
  return false;
}
