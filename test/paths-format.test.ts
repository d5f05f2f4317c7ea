import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytes } from '../src/format/bytes.js';
import { parseDeclared } from '../src/format/declared.js';
import { lockIndent, locksAfter, mayHoldLocks, renderLock } from '../src/format/locks.js';
import { mayHoldPaths } from '../src/file/held.js';
import { normalisePath, overlaps } from '../src/format/paths.js';
import { CONTROL } from '../src/format/printable.js';
import { scanTasks } from '../src/format/scan.js';
import { parseTags } from '../src/format/task.js';
import { parseTasks } from '../src/index.js';

const path = (raw: string) => {
  const n = normalisePath(raw);
  return 'path' in n ? n.path : `error: ${n.error}`;
};

describe('normalisePath', () => {
  it.each([
    ['src/auth/login.ts', 'src/auth/login.ts'],
    ['./src/auth/login.ts', 'src/auth/login.ts'],
    ['src//auth///login.ts', 'src/auth/login.ts'],
    ['src/./auth/login.ts', 'src/auth/login.ts'],
    ['src/lib/../auth/login.ts', 'src/auth/login.ts'],
    ['src/auth/', 'src/auth/'],
    ['src/auth//', 'src/auth/'],
    ['src/auth/.', 'src/auth/'],
    ['src/auth/x/..', 'src/auth/'],
    ['.', './'],
    ['./', './'],
    ['a/..', './'],
    ['app/(auth)/login.tsx', 'app/(auth)/login.tsx'],
    ['docs/ünïcode.md', 'docs/ünïcode.md'],
  ])('reads %s as %s', (raw, want) => expect(path(raw)).toBe(want));

  it.each([
    ['..', 'leaves'],
    ['../x', 'leaves'],
    ['a/../../x', 'leaves'],
    ['./../x', 'leaves'],
    ['/etc/passwd', 'absolute'],
    ['', 'empty'],
    ['a b.ts', 'blank'],
    ['a,b', '","'],
    ['src/*.ts', '"*"'],
    ['src\\win.ts', '"\\"'],
    ['a`b', '"`"'],
    ['x\ny', 'blank'],
    ['x\u0000y', 'control'],
    ['x\u007fy', 'control'],
    ['x\u0085y', 'control'],
    ['x\u009b31my', 'control'],
  ])('refuses %j (%s)', (raw, why) => expect(path(raw)).toMatch(new RegExp(`^error: .*${why.replace(/[\\*]/g, '\\$&')}`)));

  it('names a path it refuses with no control character raw, C1 included', () => {
    for (const c of ['\u001b', '\u007f', '\u0085', '\u009b']) {
      const why = path(`a${c}[31mb`);
      expect(why).toContain(`\\u00${c.charCodeAt(0).toString(16)}`);
      expect(why).not.toMatch(CONTROL);
    }
  });
});

describe('overlaps', () => {
  it.each([
    ['src/a.ts', 'src/a.ts', true],
    ['src/a.ts', 'src/b.ts', false],
    ['src/', 'src/a.ts', true],
    ['src/a.ts', 'src/', true],
    ['src/', 'src/deep/er/x.ts', true],
    ['src/', 'srcx/a.ts', false],
    ['src/auth/', 'src/authz.ts', false],
    ['src/auth', 'src/auth/', true],
    ['src/auth', 'src/auth/login.ts', false],
    ['./', 'anything/at/all', true],
    ['a/', 'b/', false],
    ['a/b/', 'a/', true],
  ])('%s and %s: %s', (a, b, want) => {
    expect(overlaps(a, b)).toBe(want);
    expect(overlaps(b, a)).toBe(want);
  });
});

describe('declared paths', () => {
  it('reads writes and reads groups anywhere in the text, normalised, each once', () => {
    expect(parseDeclared('Fix {writes: src/a.ts, ./src//b.ts} the thing {reads: docs/} {writes: src/a.ts}')).toEqual({
      writes: ['src/a.ts', 'src/b.ts'],
      reads: ['docs/'],
      errors: [],
    });
    expect(parseDeclared('{ writes :src/x.ts}').writes).toEqual(['src/x.ts']);
  });

  it('declares nothing in a code span, and keeps what does not normalise apart', () => {
    expect(parseDeclared('see `{writes: a.ts}`')).toEqual({ writes: [], reads: [], errors: [] });
    const d = parseDeclared('{writes: ../out.ts, ok.ts}');
    expect(d.writes).toEqual(['ok.ts']);
    expect(d.errors).toEqual(['path "../out.ts" leaves the board\'s directory']);
  });

  it('are not tags, and the task keeps its tags', () => {
    expect(parseTags('Refactor {writes: src/a.ts} {backend, opus} {reads:docs/api.md} {writes:x}')).toEqual(['backend', 'opus']);
    // Before declarations existed `{writes:x}` read as a tag; any other key still does.
    expect(parseTags('{written:x} {notes}')).toEqual(['written:x', 'notes']);
  });

  it('show on the task, only when there are some', () => {
    const [a, b] = parseTasks('- [ ] A {writes: src/a.ts} {reads: docs/} {be}\n- [ ] B {be}\n');
    expect(a).toMatchObject({ writes: ['src/a.ts'], reads: ['docs/'], tags: ['be'] });
    expect(b).not.toHaveProperty('writes');
    expect(b).not.toHaveProperty('reads');
    expect(b).not.toHaveProperty('locks');
  });
});

describe('lock lines', () => {
  const board = [
    '- [🟡, dana, 2026-11-30T04:06:29Z] A task',
    '  - 🔒 write src/a.ts since 2026-11-30T04:07:00Z',
    '  * 🔒 read docs/ünï.md',
    '\t🔒  write   lib/  ',
    '  - 🔒 take over/',
    '- [ ] B',
  ].join('\n');

  it('are the lines right under a task that read as locks, and never tasks themselves', () => {
    const src = bytes(board);
    const tasks = scanTasks(src);
    expect(tasks.map((t) => t.line)).toEqual([1, 6]);
    expect(locksAfter(src, tasks[0]!.end).map(({ mode, path, since }) => ({ mode, path, since }))).toEqual([
      { mode: 'write', path: 'src/a.ts', since: '2026-11-30T04:07:00Z' },
      { mode: 'read', path: 'docs/ünï.md', since: undefined },
      { mode: 'write', path: 'lib/', since: undefined },
    ]);
    expect(locksAfter(src, tasks[1]!.end)).toEqual([]);
    expect(parseTasks(board)[0]!.locks).toHaveLength(3);
  });

  it('stop at a blank line', () => {
    const src = bytes('- [🟡, a, 2026-11-30T04:06:29Z] A\n\n  - 🔒 write x\n');
    expect(locksAfter(src, scanTasks(src)[0]!.end)).toEqual([]);
  });

  it('render as they read, indented under a list item or a bare line', () => {
    const src = bytes('1. [ ] numbered\n   - [ ] nested\n[ ] bare\n');
    const [numbered, nested, bare] = scanTasks(src);
    expect([numbered, nested, bare].map((t) => lockIndent(src, t!))).toEqual(['   ', '     ', '  ']);
    const line = renderLock('  ', { mode: 'read', path: 'docs/ünï.md', since: '2026-11-30T04:07:00Z' });
    expect(line).toBe('  - 🔒 read docs/ünï.md since 2026-11-30T04:07:00Z');
    const again = bytes(`[ ] t\n${line}\n`);
    expect(locksAfter(again, scanTasks(again)[0]!.end)[0]).toMatchObject({ mode: 'read', path: 'docs/ünï.md', since: '2026-11-30T04:07:00Z' });
  });
});

describe('the look for lock glyphs', () => {
  it('finds a 🔒 wherever it stands, and nothing else, among other 4-byte characters and its own bytes in pieces', () => {
    // Byte strings (one character a byte, as the board is read): whole glyphs, and the lock's bytes in pieces.
    const piece = fc.constantFrom(bytes('🔒'), bytes('🟡'), bytes('✅'), 'x', '\n', ' ', '\x94\x92', '\xf0\x9f', '\xf0\x9f\x94', '\x9f\x94\x92', '{writes: a}', '{reads:b}', 'writes');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const src = parts.join('');
        expect(mayHoldLocks(src)).toBe(src.includes(bytes('🔒')));
        expect(mayHoldPaths(src)).toBe(src.includes(bytes('🔒')) || /\{[ \t]*(?:writes|reads)[ \t]*:/.test(src));
      }),
      { numRuns: 2000 },
    );
  });
});
