import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytes, toByteString } from '../src/format/bytes.js';
import { canonicalClaimTime, markerStatus, parseMarker } from '../src/format/marker.js';
import { TaskScanner } from '../src/format/scan.js';

/** The scanner with every line read the general way. */
class GeneralScanner extends TaskScanner {
  protected override readonly fastLines = false;
}

/** Everything the scanner reports: each task line with its marker and section, and the headings. */
function read(md: string, Scanner: typeof TaskScanner) {
  const s = new Scanner(toByteString(md));
  const tasks = [];
  for (let t = s.next(); t; t = s.next()) tasks.push(t);
  return { tasks, headings: s.headings };
}

// Board lines and their neighbours: indentation of spaces and tabs, every list marker, markers
// in canonical and odd forms, headings, setext underlines, fences, quotes, definitions.
const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '     ', '      ', '\t', '  \t', ' \t ');
const item = fc.constantFrom('', '', '- ', '* ', '+ ', '-  ', '-    ', '-     ', '-\t', '1. ', '2) ', '10. ', '123456789. ', '1234567890. ', '1.  ', '-', '1.');
const marker = fc.constantFrom(
  '[ ]', '[]', '[x]', '[X]', '[⏰]', '[🟡, ab12, 2026-11-30T04:06:29Z]', '[🟡, a, 2026-11-30T04:06:29Z]', '[🟡, ab12]', '[🟡]',
  '[🟡, ab12, 2026-11-30T04:06:29+02:00]', '[🟡, ab12, 2026-11-30T04:06:29.5Z]', '[🟡️, ab12, 2026-11-30T04:06:29Z]', '[🟡, a b, 2026-11-30T04:06:29Z]',
  '[✅ abc123, ab12]', '[✅, ab12]', '[✅ , ab12]', '[✅  abc, ab12]', '[✅ a/b-c.d_e, ab12]', '[❌, ab12]', '[❌,ab12]', '[❌]', '[link]', '[a]:', '[a]: /u',
  '[ ]x', '[', '[[ ]]', '[\\]]',
  // The forms other ADW tools write (docs/FORMAT.md, dialects).
  '[✅, a51df2e, 03e166af]', '[✅, taskab, 0c4f1d2e9b7a]', '[⏰, taskgh]', '[, taskef]', '[ , x]', '[🟡 w-899e35, trees/gh-504]', '[❌ w-0afb14]', '[⏰ w-1, /p/t]',
);
const rest = fc.constantFrom('', ' task', ' task {tag}', '\ttab', '  two', ' ✨ émoji', ' # not heading', ' - not item', ' // Failed: r');
const other = fc.constantFrom(
  '', '', '', '  ', '\t', '# H', '## Git Worktree wt', '###### six', '####### seven', '#NoSpace', '# C# ##', '===', '---', '- - -', '***', '___',
  '```', '~~~', '<!--', '-->', '<div>', '> quoted', '>', 'plain text', '2024 was a year', '- # heading in item', '- > quote in item', '- - nested',
  '1. 2. deep', '*emphasis*', '-not item', '+', '|a|b|',
);
const line = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(indent, item, marker, rest).map(([a, b, c, d]) => a + b + c + d) },
  { weight: 2, arbitrary: fc.tuple(indent, other).map(([a, b]) => a + b) },
);
const document = fc
  .tuple(fc.array(line, { maxLength: 24 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
  .map(([lines, eol, final]) => lines.join(eol) + (final && lines.length > 0 ? eol : ''));

describe('the fast reading of plain lines', () => {
  it('finds the same tasks, markers, sections and headings as the general reading in generated documents', () => {
    fc.assert(
      fc.property(document, (md) => {
        expect(read(md, TaskScanner)).toEqual(read(md, GeneralScanner));
      }),
      { numRuns: 4000 },
    );
  });

  it('agrees with the general reading where list items, definitions and setext headings meet', () => {
    const cases = [
      '- [ ] a\n- [x] b\n\n- [ ] c\n  - [ ] d\n    - [ ] e\n  continued\n[ ] lazy\n',
      '[ ] a\n[ ] b\n---\n[ ] c\n===\n',
      'text\n2. [ ] not a list\n1. [ ] a list\n',
      '-\n  [ ] in the item\n\n-\n\n    [ ] code\n',
      '[a]: /u\n[ ] task\n\n[b]:\n[x]\n[ ] task\n',
      '- a\n\n  [ ] still in the item\n\n[ ] out\n',
      '1. [ ] a\n   [ ] b\n10. [ ] c\n    [ ] d\n',
      '- [ ] a\n  ```\n  [ ] code\n  ```\n- [ ] b\n',
    ];
    for (const md of cases) expect(read(md, TaskScanner), md).toEqual(read(md, GeneralScanner));
  });
});

describe('markerStatus', () => {
  // Markers field by field, each field right or wrong in the ways that matter.
  const emoji = fc.constantFrom('', ' ', 'x', 'X', '⏰', '⏰️', '🟡', '🟡️', '✅', '❌', 'é');
  const sep = fc.constantFrom('', ', ', ',', ' ', ' , ', ',  ', '\u00a0');
  const field = fc.constantFrom('', 'ab12', 'a b', 'a', 'A.b_c:d@e-f', 'a'.repeat(64), 'a'.repeat(65), 'abc/1', 'é', '\\', '[', 'x]', 'w-899e35', 'trees/gh-504', 'a51df2e', '03e166af', '30m');
  const time = fc.constantFrom('', '2026-11-30T04:06:29Z', '2026-11-30T04:06:29', '2026-11-30t04:06:29Z', '2026-13-99T99:99:99Z', '2026-11-30T04:06:29+02:00', '2026-11-30T04:06:290Z');
  const end = fc.constantFrom(']', '] ', ']\t', ']\n', ']\r\n', ']x', ']:', '');
  const candidate = fc
    .tuple(emoji, sep, field, sep, fc.oneof(field, time), fc.oneof(fc.constant(''), fc.tuple(sep, fc.oneof(field, time)).map(([a, b]) => a + b)), end)
    .map((parts) => '[' + parts.join(''));

  it('gives parseMarker’s status for every marker and non-marker', () => {
    fc.assert(
      fc.property(candidate, (text) => {
        const src = bytes(text);
        const close = src.indexOf(']', 1);
        fc.pre(close > 0);
        const m = parseMarker(src, 0);
        expect(markerStatus(src, 0, close)).toBe(m?.status ?? null);
        // A canonical claim's time is where parseMarker read it.
        const at = canonicalClaimTime(src, 0);
        if (at >= 0 && m !== null) expect(src.slice(at, at + 20)).toBe(m.claimedAt);
        if (at >= 0) expect(m === null || m.status === 'claimed').toBe(true);
      }),
      { numRuns: 20000 },
    );
  });
});
