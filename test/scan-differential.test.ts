import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toByteString, utf8 } from '../src/format/bytes.js';
import { referenceScan } from './helpers/reference.js';
import { TaskScanner } from '../src/format/scan.js';

/** The scanner reading by the CommonMark spec where remark departs from it (see BlockReader.remarkQuirks). */
class SpecScanner extends TaskScanner {
  protected override readonly remarkQuirks = false;
}

/** Task lines, each with its text from the marker on, and heading lines, as the scanner sees them. */
function scan(md: string, Scanner: typeof TaskScanner = TaskScanner) {
  const src = toByteString(md);
  const s = new Scanner(src);
  const tasks: number[] = [];
  const contents: string[] = [];
  for (let t = s.next(); t; t = s.next()) {
    tasks.push(t.line);
    contents.push(utf8(src, t.markerStart, t.end));
  }
  return { tasks, contents, headings: s.headings.map((h) => h.line) };
}

/** The same, as remark sees them. */
async function reference(md: string) {
  const r = await referenceScan(md);
  return { tasks: r.tasks.map((t) => t.line), contents: r.tasks.map((t) => t.content), headings: r.headings };
}

// Line starts: indentation (spaces, tabs), list markers, block quote markers.
const prefix = fc.constantFrom(
  '', '', ' ', '  ', '   ', '    ', '      ', '        ', '\t', ' \t', '\t\t',
  '- ', '* ', '+ ', '1. ', '2) ', '10. ', '-   ', '-     ', '-\t', '1.\t', '-',
  '> ', '>', ' > ', '>>', '> >', '\t>',
);
// What follows: every kind of block start, markers and look-alikes, text.
const body = fc.constantFrom(
  '', '  ', 'plain text', 'emoji 🎉 text', '# Heading', '## Sec ##', '#NoSpace', '===', '---', '- - -', '***', '-', '=',
  '```', '```js', '~~~', '~~~~', '````', '``` a`b', '<div>', '</div>', '<!--', '-->', '<!-- c -->', '<pre>', '</pre>',
  '<span>', '<?x', '?>', '[ ] task', '[] task', '[x] done', '[X]', '[⏰] wait', '[🟡, ab12, 2026-11-30T04:06:29Z] mine',
  '[✅ abc123, ab12] ok', '[❌, ab12]', '[link] text', '[ ]', '[x]text', '[a]: /url', '[a]:', '"title"',
);
const line = fc.tuple(fc.array(prefix, { maxLength: 3 }), body).map(([p, b]) => p.join('') + b);
const head = fc.constantFrom('', '', '', '\uFEFF', '---\na: 1\n---\n', '---\n');
const document = fc
  .tuple(head, fc.array(line, { maxLength: 16 }), fc.constantFrom('\n', '\n', '\r\n', 'mixed'), fc.boolean())
  .map(([start, lines, eol, final]) =>
    lines.reduce((md, l, i) => md + l + (i < lines.length - 1 || final ? (eol === 'mixed' ? (i % 2 ? '\r\n' : '\n') : eol) : ''), start),
  );

describe('the scanner against remark', () => {
  it('agrees on task lines, their text and heading lines in generated documents', async () => {
    await fc.assert(
      fc.asyncProperty(document, async (md) => {
        expect(scan(md)).toEqual(await reference(md));
      }),
      { numRuns: 2500 },
    );
  });

  it('agrees on ADW boards of bare lines, with what may end or interrupt their paragraphs', async () => {
    const bare = fc.tuple(fc.constantFrom('', '', '', ' ', '   ', '    ', '\t'), fc.constantFrom('[ ]', '[]', '[x]', '[⏰]', '[🟡, ab12, 2026-11-30T04:06:29Z]', '[✅ abc123, ab12]', '[❌, ab12]', '[🟡, a, 2026-11-30T04:06:29Z, 2h]'), fc.constantFrom(' task', ' task {tag}', ' x {writes: src/a.ts}', '')).map(([i, m, t]) => i + m + t);
    const between = fc.constantFrom('', '   ', '# H', '## Git Worktree w', '===', '---', ' ---', '***', '- [ ] item', '1. [ ] one', '2. two', '> q', '```', '~~~', '<div>', '<!--', '-->', 'text', '[a]: /u', '\t# not');
    const board = fc
      .tuple(fc.array(fc.oneof({ weight: 10, arbitrary: bare }, { weight: 1, arbitrary: between }), { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
      .map(([lines, eol, final]) => lines.join(eol) + (final ? eol : ''));
    await fc.assert(
      fc.asyncProperty(board, async (md) => {
        expect(scan(md)).toEqual(await reference(md));
      }),
      { numRuns: 1500 },
    );
  });

  it('agrees on a bare board read again after an edit, as a claim reads it after the one before', async () => {
    // The scanner remembers where the last board's run of text lines ended (see textRunEnd) and
    // reads only what changed: the board after any edit must read as remark reads it afresh.
    const bare = fc.tuple(fc.constantFrom('', '', ' '), fc.constantFrom('[ ]', '[x]', '[🟡, ab12, 2026-11-30T04:06:29Z]'), fc.constantFrom(' task', '')).map(([i, m, t]) => i + m + t);
    const odd = fc.constantFrom('', '===', '---', '- [ ] item', '# H', '> q', '```', '<div>', '1. one', 'text', '\r');
    const lines = fc.array(fc.oneof({ weight: 8, arbitrary: bare }, { weight: 1, arbitrary: odd }), { minLength: 1, maxLength: 30 });
    const board = fc.tuple(lines, fc.constantFrom('\n', '\r\n')).map(([ls, eol]) => '# Tasks\n' + ls.join(eol) + eol);
    const insert = fc.oneof(bare, odd, fc.constantFrom('\n', '\n===', '\n---\n', '🟡, me, 2026-12-04T20:00:00Z', 'x', '\r', ''));
    // Cut by characters, never inside one (a board is UTF-8 bytes, not halves of a surrogate pair).
    const edited = fc.tuple(board, fc.nat(), fc.nat({ max: 40 }), insert).map(([md, at, cut, ins]) => {
      const chars = Array.from(md);
      const i = at % (chars.length + 1);
      return [md, chars.slice(0, i).join('') + ins + chars.slice(i + cut).join('')] as const;
    });
    await fc.assert(
      fc.asyncProperty(edited, async ([before, after]) => {
        scan(before);
        expect(scan(after)).toEqual(await reference(after));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads by the spec, when asked to, the same where none of remark’s departures can arise', async () => {
    // One shallow prefix a line and no bare `-` after it: no indented code, no list item
    // nested on an interrupting line; and no kind-7 HTML.
    const shallow = fc.tuple(fc.constantFrom('', ' ', '  ', '- ', '* ', '+ ', '1. ', '2) ', '> ', '>'), body);
    const plain = shallow.filter(([, b]) => !['<span>', '</pre>', '-'].includes(b)).map(([p, b]) => p + b);
    await fc.assert(
      fc.asyncProperty(fc.array(plain, { maxLength: 16 }), async (lines) => {
        const md = lines.join('\n');
        expect(scan(md, SpecScanner)).toEqual(await reference(md));
      }),
      { numRuns: 1000 },
    );
  });

  const agreed = {
    'a bare board line': '## Section\n[ ] a\n[x] b\n',
    'list items of every kind': '- [ ] a\n* [x] b\n+ [⏰] c\n1. [ ] d\n2) [❌, ab12] e\n',
    'a tilde fence': '~~~\n- [ ] code\n~~~\n- [ ] live\n',
    'an unclosed fence in a list item': '- a\n  ```\n  - [ ] code\n- [ ] live\n',
    'a setext heading made of tasks': '[ ] a\n[ ] b\n---\n[ ] c\n',
    'block quotes and their lazy lines': '> - [ ] q\n[ ] lazy\n\n> > [x] deep\n\n[ ] live\n',
    'an HTML comment over lines': '<!--\n- [ ] hidden\n-->\n- [ ] live\n',
    'kind-7 HTML after a paragraph': 'text\n<span>\n[ ] continuation\n',
    'indented code and a continuation': '    [ ] code\n\ntext\n    [ ] continuation\n',
    'tabs': '-\t[ ] a\n\t- [ ] b\n-\t\t[ ] code\n',
    'an empty item and a blank line': '-\n  [ ] in\n\n-\n\n    [ ] code\n',
    'interrupting lists': 'text\n2. [ ] no\n\ntext\n1. [ ] yes\n\ntext\n*\n[ ] continuation\n',
    'link reference definitions': '[a]:\n[x]\n[ ] task\n\n[b]: /u "a\n[ ] title"\n',
    'front matter': '---\ntitle: x\n[ ] no\n---\n[ ] yes\n',
    'a BOM, CRLF and emoji': '\uFEFF# Émoji 🎉\r\n- [🟡, ab12, 2026-11-30T04:06:29Z] claim\r\n[ ] bare',
    'lone CRs': '# h\r[ ] a\r\r[x] b',
  };
  for (const [name, md] of Object.entries(agreed)) {
    it(`agrees on ${name}`, async () => {
      expect(scan(md)).toEqual(await reference(md));
    });
  }

  // remark-parse 11 (micromark 4) departs from CommonMark here; the scanner follows remark, its reference.
  const departures: Array<[string, string, number[], number[]]> = [
    ['a list after indented code (micromark PR #228)', '    code\n\n2. [ ] task\n', [3], []],
    ['a list nested on a line that interrupts a paragraph', 'text\n- 2. [ ] task\n', [2], []],
    ['an empty item in a quote that interrupts a paragraph', 'text\n>-\n[ ] task\n', [3], []],
    ['a list starting at 01 interrupting a paragraph', 'text\n01. [ ] task\n', [2], []],
    ['kind-7 HTML on a lazy line', '> quote\n<span>\n[ ] task\n', [], [3]],
    ['a link title in parentheses holding a (', '[a]: /u (t\n[ ] task (t)\n', [2], []],
  ];
  for (const [name, md, commonmark, remark] of departures) {
    it(`follows remark, not the spec, on ${name}`, async () => {
      expect((await reference(md)).tasks).toEqual(remark);
      expect(scan(md).tasks).toEqual(remark);
      expect(scan(md, SpecScanner).tasks).toEqual(commonmark);
    });
  }
});
