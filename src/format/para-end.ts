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
 * answers that in one native match instead of a read of every line.
 */
export function endsAsParagraph(src: ByteString, from: number): boolean {
  TEXT_LINES.lastIndex = from;
  TEXT_LINES.test(src);
  const stop = TEXT_LINES.lastIndex;
  if (stop >= src.length) return true;
  // A lone \r ended the last line read (or the one before `from`): the usual reading decides.
  if (stop === 0 || src.charCodeAt(stop - 1) !== 0x0a) return false;
  ENDER.lastIndex = stop;
  return ENDER.test(src);
}
