import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toByteString } from '../src/format/bytes.js';
import { endsAsParagraph, textRunEnd } from '../src/format/para-end.js';

/** Ask about the paragraph whose first line is `first`, followed by `rest`. */
const ends = (first: string, rest: string) => endsAsParagraph(toByteString(first + rest), toByteString(first).length);

describe('telling that a top-level paragraph ends as one', () => {
  it('says yes when text lines run to the end, a blank line, an ATX heading, a fence or a quote', () => {
    for (const rest of ['', '[x] b\n[ ] c', '[x] b\n[ ] c\n', '[x] b\n\n- [ ] c\n', '[ ] b\n# H\n', '  [ ] b\n```js\n', '[ ] b\n~~~\n', '[ ] b\n> q\n', '[ ] b\r\n\r\n---\r\n', 'text\n   ## H\n']) {
      expect(ends('[ ] a\n', rest), JSON.stringify(rest)).toBe(true);
    }
  });

  it('says it cannot tell when a line below could make it a heading or start something it would take reading to judge', () => {
    for (const rest of ['[x] b\n---\n', '[x] b\n===\n', '[ ] b\n- [ ] item\n', '[ ] b\n***\n', '[ ] b\n<div>\n', '[ ] b\n1. x\n', '[ ] b\n2. x\n', '[ ] b\n\t# not a heading\n', '    - not an item\n', '[ ] b\r[ ] c\n']) {
      expect(ends('[ ] a\n', rest), JSON.stringify(rest)).toBe(false);
    }
  });

  it('says it cannot tell after a lone carriage return, a line ending it does not follow', () => {
    expect(endsAsParagraph(toByteString('[ ] a\r[ ] b\r'), 6)).toBe(false);
  });
});

// A text line spelt out, one line at a time: its first non-blank character starts no block,
// and only its last character ends it (a \n, after an optional \r; or the end of the document).
const TEXT_LINE = /^[ \t]*[^#`~*+_=<>\-0-9 \t\r\n][^\r\n]*(?:\r?\n)?$/;

/** Where the run of text lines from `from` ends, read line by line. */
function runEnd(src: string, from: number): number {
  for (let i = from; i < src.length; ) {
    const nl = src.indexOf('\n', i);
    const end = nl < 0 ? src.length : nl + 1;
    if (!TEXT_LINE.test(src.slice(i, end))) return i;
    i = end;
  }
  return src.length;
}

describe('where a run of text lines ends, read again after the board changed', () => {
  const text = fc.constantFrom('[ ] task', '[x] done', '[🟡, ab12, 2026-11-30T04:06:29Z] mine', '  [ ] x', 'text', '\t[ ] t');
  const odd = fc.constantFrom('', '===', '---', '- [ ] item', '# H', '> q', '1. one', '<div>', 'a\rb', ' \t');
  const line = fc.oneof({ weight: 12, arbitrary: text }, { weight: 1, arbitrary: odd });
  // Some boards repeat their lines into tens of kilobytes, so the comparison goes by every step it takes.
  const board = fc
    .tuple(fc.array(line, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 2500 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([ls, times, eol, last]) => {
      const body = Array.from({ length: times > 2000 ? times : 1 }, () => ls.join(eol)).join(eol);
      return toByteString('# T\n' + body + (last ? eol : ''));
    });
  const piece = fc.oneof(line, fc.constantFrom('\n', '\r', '\n---', '🟡, me, 2026-12-04T20:00:00Z', 'x', ''));
  const edit = fc.tuple(fc.nat(), fc.nat({ max: 60 }), fc.array(piece, { maxLength: 3 })).map(([at, cut, ins]) => ({ at, cut, ins: toByteString(ins.join('\n')) }));
  const apply = (md: string, e: { at: number; cut: number; ins: string }) => {
    const i = e.at % (md.length + 1);
    return md.slice(0, i) + e.ins + md.slice(Math.min(md.length, i + e.cut));
  };

  it('finds the end a line-by-line reading finds, board after board, whatever changed between', () => {
    fc.assert(
      fc.property(board, fc.array(edit, { minLength: 1, maxLength: 4 }), fc.nat({ max: 3 }), (md, edits, at) => {
        // From the start of one of the board's first lines, the same for every version.
        let from = 0;
        for (let k = 0; k <= at; k++) from = md.indexOf('\n', from) + 1 || from;
        let src = md;
        expect(textRunEnd(src, from)).toBe(runEnd(src, from));
        for (const e of edits) {
          src = apply(src, e);
          if (from > src.length) return;
          expect(textRunEnd(src, from), JSON.stringify(e)).toBe(runEnd(src, from));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('finds it after a claim lengthens a line past the middle of a long bare board, and after an underline added far below', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `[ ] task ${i + 1}`);
    const md = toByteString('# T\n' + lines.join('\n') + '\n');
    const from = md.indexOf('\n', 4) + 1;
    expect(textRunEnd(md, from)).toBe(md.length);
    const claimed = md.replace('[ ] task 12345\n', toByteString('[🟡, me, 2026-12-04T20:00:00Z] task 12345\n'));
    expect(textRunEnd(claimed, from)).toBe(claimed.length);
    const underlined = claimed.replace('[ ] task 19999\n', '[ ] task 19999\n---\n');
    expect(textRunEnd(underlined, from)).toBe(underlined.indexOf('---\n'));
    expect(endsAsParagraph(underlined, from)).toBe(false);
    expect(endsAsParagraph(underlined.replace('---\n', ''), from)).toBe(true);
  });
});
