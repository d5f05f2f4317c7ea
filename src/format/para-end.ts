import type { ByteString } from './bytes.js';

// Lines that can only continue an open top-level paragraph: their first non-blank character
// starts no block (see mayStartBlock), so they are text whatever their indentation.
const TEXT_LINES = /(?:[ \t]*[^#`~*+_=<>\-0-9 \t\r\n][^\r\n]*(?:\r\n|\n|(?![\s\S])))*/y;
// Lines that end a paragraph without making it a heading: blank, an ATX heading, a code fence,
// a block quote. (A setext underline, a thematic break, a list item or HTML may or may not; the
// caller reads those the usual way.)
const ENDER = /[ \t]*(?:\r|\n|$)| {0,3}(?:#{1,6}(?:[ \t\r\n]|$)|~{3}|`{3,}[^`\r\n]*(?:\r|\n|$)|>)/y;

/**
 * Does the top-level paragraph open before `from` (the start of its next
 * line) end as a paragraph, not as a setext heading? True when the lines
 * from `from` on are text up to one that surely ends it (or the end of the
 * document); false when that cannot be told without reading on the usual way.
 *
 * A bare ADW board is one long paragraph per section, and a paragraph's
 * lines are task lines only once it is known not to be a heading; this
 * answers that in one native match instead of a read of every line, and
 * on a board read after another, in a comparison with it and a match of
 * the lines that changed (see textRunEnd).
 */
export function endsAsParagraph(src: ByteString, from: number): boolean {
  const stop = textRunEnd(src, from);
  if (stop >= src.length) return true;
  // A lone \r ended the last line read (or the one before `from`): the usual reading decides.
  if (stop === 0 || src.charCodeAt(stop - 1) !== 0x0a) return false;
  ENDER.lastIndex = stop;
  return ENDER.test(src);
}

/** The last run of text lines found (see textRunEnd). */
let known: { src: ByteString; from: number; stop: number } | null = null;

/**
 * Where the run of text lines from `from` ends: the start of its first line
 * that is not one (a line here runs to its \n), or the end of the document.
 *
 * Whether a line is text depends on its own bytes alone. Between two claims
 * a board changes by a line or two somewhere inside the long paragraph of a
 * bare board, so the lines that came before the change and those that come
 * after it are the lines of the run found last time, only moved; just the
 * lines the change touched are matched again. The bytes kept (before the
 * change) and moved (after it) are found by comparing with the last board
 * read, natively, which costs a small part of matching every line.
 */
export function textRunEnd(src: ByteString, from: number): number {
  const k = known;
  const stop = k === null || k.from !== from ? matchFrom(src, from) : k.src === src ? k.stop : runAfterChange(src, from, k.src, k.stop);
  known = { src, from, stop };
  return stop;
}

function matchFrom(src: ByteString, from: number): number {
  TEXT_LINES.lastIndex = from;
  TEXT_LINES.test(src);
  return TEXT_LINES.lastIndex;
}

/** textRunEnd of `src`, given that the run from `from` in `old` ended at `oldStop`. */
function runAfterChange(src: ByteString, from: number, old: ByteString, oldStop: number): number {
  const shortest = Math.min(src.length, old.length);
  const kept = samePrefix(src, old, from, shortest);
  // Lines from `from` up to `a` are byte for byte the old ones; the line at `a` may not be.
  const a = kept <= from ? from : Math.max(from, src.lastIndexOf('\n', kept - 1) + 1);
  // The old run ended on a line that is still there, unchanged.
  if (oldStop < a) return oldStop;
  const tail = src.length - sameSuffix(src, old, shortest - kept);
  // The first line after the change whose \n before it is in the moved bytes: from `b` on, the
  // lines are the old ones from `b - shift` on, which is past `from` and so a line of the old run's reading.
  const b = src.indexOf('\n', tail) + 1;
  if (b === 0) return matchFrom(src, a);
  const shift = src.length - old.length;
  if (b - shift > oldStop) return matchFrom(src, a);
  // Match the changed lines alone (the slice ends just after a \n, so on a line's end).
  TEXT_LINES.lastIndex = 0;
  TEXT_LINES.test(src.slice(a, b));
  const end = a + TEXT_LINES.lastIndex;
  return end < b ? end : oldStop + shift;
}

const STEPS = [65536, 2048, 64];

/** Up to where, from `i`, `x` and `y` hold the same bytes (at most `n`). */
function samePrefix(x: ByteString, y: ByteString, i: number, n: number): number {
  for (const step of STEPS) while (i + step <= n && x.slice(i, i + step) === y.slice(i, i + step)) i += step;
  while (i < n && x.charCodeAt(i) === y.charCodeAt(i)) i++;
  return i;
}

/** How many bytes `x` and `y` end with in common (at most `n`). */
function sameSuffix(x: ByteString, y: ByteString, n: number): number {
  const xl = x.length;
  const yl = y.length;
  let i = 0;
  for (const step of STEPS) while (i + step <= n && x.slice(xl - i - step, xl - i) === y.slice(yl - i - step, yl - i)) i += step;
  while (i < n && x.charCodeAt(xl - i - 1) === y.charCodeAt(yl - i - 1)) i++;
  return i;
}
