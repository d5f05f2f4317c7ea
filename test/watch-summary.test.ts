import { describe, expect, it } from 'vitest';
import { listTasks } from '../src/board/walk.js';
import { toByteString } from '../src/format/bytes.js';
import type { Task } from '../src/format/task.js';
import { diffEvents } from '../src/watch/events.js';
import { paint, type Style } from '../src/watch/paint.js';
import { summarize } from '../src/watch/summary.js';
import { frameLines } from '../src/watch/frame.js';
import { layout } from '../src/watch/view.js';

// The summary `status` prints and `watch` shows, and the events between two readings: pure, no disk.

const tasks = (md: string): Task[] => listTasks(toByteString(md));
const at = (iso: string) => Date.parse(iso);
const NOW = at('2026-12-01T10:00:00Z');

const BOARD = `# Backend

- [✅, ann] Set up the repo
- [🟡, alice, 2026-12-01T09:50:00Z] Fix the login {writes: src/auth/}
  - 🔒 read docs/api.md since 2026-12-01T09:51:00Z
- [ ] Touch the login too {writes: src/auth/login.ts}
- [🟡, bob, 2026-12-01T09:59:00Z, 30s] Quick fix
- [⏰] Deploy after the above
- [🟡, adw1] An ADW claim with no time

# Frontend

- [❌, carol] Build the page // Failed: the build broke
- [🟡, dana, 2026-12-01T08:00:00Z, 4h] Long job {reads: docs/}
- [ ] Style the page {writes: docs/style.md}
`;

describe('summarize', () => {
  const s = summarize(tasks(BOARD), NOW);

  it('counts by status and per section', () => {
    expect(s.counts).toEqual({ open: 2, blocked: 1, claimed: 4, done: 1, failed: 1, total: 9 });
    expect(s.sections).toEqual([
      { name: 'Backend', done: 1, total: 6 },
      { name: 'Frontend', done: 0, total: 3 },
    ]);
    expect(s.at).toBe('2026-12-01T10:00:00Z');
  });

  it('tells live, lapsed and untimed claims apart by each claim\'s own lease, lapsed first', () => {
    expect(s.claims.map((c) => [c.by, c.state])).toEqual([
      ['bob', 'lapsed'],
      ['alice', 'live'],
      ['dana', 'live'],
      ['adw1', 'untimed'],
    ]);
    expect([s.live, s.lapsed, s.untimed]).toEqual([2, 1, 1]);
    const alice = s.claims.find((c) => c.by === 'alice')!;
    expect(alice).toMatchObject({ heldMs: 10 * 60_000, leftMs: 20 * 60_000, lease: '30m', expiresAt: '2026-12-01T10:20:00Z' });
    expect(s.claims[0]).toMatchObject({ by: 'bob', heldMs: 60_000, leftMs: -30_000 });
    expect(s.claims[3]!.heldMs).toBeUndefined();
    expect(s.oldestClaim).toMatchObject({ by: 'dana', heldMs: 2 * 3_600_000 });
  });

  it('lists what live claims hold, declared and locked, and nothing of a lapsed claim', () => {
    expect(s.paths).toEqual([
      { path: 'src/auth/', mode: 'write', kind: 'declared', task: s.claims[1]!.id, by: 'alice' },
      { path: 'docs/api.md', mode: 'read', kind: 'locked', task: s.claims[1]!.id, by: 'alice' },
      { path: 'docs/', mode: 'read', kind: 'declared', task: s.claims[2]!.id, by: 'dana' },
    ]);
  });

  it('says what keeps each waiting task: a held path, or a task above a [⏰] not done', () => {
    expect(s.blocked).toEqual([
      { id: expect.any(String), text: 'Touch the login too {writes: src/auth/login.ts}', reason: 'path', path: 'src/auth/', mode: 'write', task: s.claims[1]!.id, by: 'alice' },
      { id: expect.any(String), text: 'Deploy after the above', reason: 'above', task: s.claims[1]!.id },
      { id: expect.any(String), text: 'Style the page {writes: docs/style.md}', reason: 'path', path: 'docs/', mode: 'read', task: s.claims[2]!.id, by: 'dana' },
    ]);
  });

  it('frees a [⏰] whose tasks above are all done, and a path whose claim lapsed', () => {
    const later = summarize(tasks(BOARD), at('2026-12-01T10:21:00Z'));
    expect(later.lapsed).toBe(2);
    expect(later.blocked.map((b) => b.text)).toEqual(['Deploy after the above', 'Style the page {writes: docs/style.md}']);
    const free = summarize(tasks('- [✅] one\n- [⏰] two\n'), NOW);
    expect(free.blocked).toEqual([]);
  });

  it('lists failed tasks with their reasons', () => {
    expect(s.failures).toEqual([{ id: expect.any(String), text: 'Build the page', by: 'carol', reason: 'the build broke' }]);
  });

  it('counts and shows only the tasks of the filter, while holds outside it still block', () => {
    const front = summarize(tasks(BOARD), NOW, { section: 'Frontend' });
    expect(front.counts).toMatchObject({ claimed: 1, failed: 1, open: 1, total: 3 });
    expect(front.blocked.map((b) => b.text)).toEqual(['Style the page {writes: docs/style.md}']);
    const none = summarize(tasks(BOARD), NOW, { tags: ['nope'] });
    expect(none.counts.total).toBe(0);
  });

  it('gives a done rate only from watched events, over at most the last 5 minutes', () => {
    expect(s.doneRate).toBeNull();
    const e = (ms: number, event: 'done' | 'failed') => ({ at: NOW - ms, event, id: 'x', text: 'x' });
    const r = summarize([], NOW, {}, [e(6 * 60_000, 'done'), e(60_000, 'done'), e(30_000, 'done'), e(10_000, 'failed')], NOW - 10 * 60_000);
    expect(r.doneRate).toEqual({ perMinute: 0.4, done: 2, windowMs: 5 * 60_000 });
    const young = summarize([], NOW, {}, [e(10_000, 'done')], NOW - 30_000);
    expect(young.doneRate).toEqual({ perMinute: 2, done: 1, windowMs: 30_000 });
  });
});

describe('diffEvents', () => {
  const before = tasks(BOARD);
  const change = (from: string, to: string) => tasks(BOARD.replace(from, to));

  it('tells claimed, taken over, done with its commit, failed with its reason', () => {
    const e = (md: Task[]) => diffEvents(before, md, NOW).map(({ at: _, id: __, ...rest }) => rest);
    expect(e(change('- [ ] Touch', '- [🟡, eve, 2026-12-01T10:00:00Z] Touch'))).toEqual([{ event: 'claimed', by: 'eve', text: 'Touch the login too {writes: src/auth/login.ts}' }]);
    expect(e(change('[🟡, bob, 2026-12-01T09:59:00Z, 30s]', '[🟡, eve, 2026-12-01T10:00:00Z]'))).toEqual([{ event: 'taken over', by: 'eve', from: 'bob', text: 'Quick fix' }]);
    expect(e(change('[🟡, alice, 2026-12-01T09:50:00Z]', '[✅ abc1234, alice]'))[0]).toEqual({ event: 'done', by: 'alice', commit: 'abc1234', text: 'Fix the login {writes: src/auth/}' });
    expect(e(change('[🟡, alice, 2026-12-01T09:50:00Z] Fix the login {writes: src/auth/}', '[❌, alice] Fix the login {writes: src/auth/} // Failed: tests red'))[0]).toEqual({
      event: 'failed', by: 'alice', reason: 'tests red', text: 'Fix the login {writes: src/auth/}',
    });
  });

  it('calls a claim that went back to open reaped when it had lapsed, released when it had not', () => {
    expect(diffEvents(before, change('[🟡, bob, 2026-12-01T09:59:00Z, 30s]', '[ ]'), NOW)).toMatchObject([{ event: 'reaped', from: 'bob', text: 'Quick fix' }]);
    expect(diffEvents(before, change('[🟡, alice, 2026-12-01T09:50:00Z]', '[ ]'), NOW)[0]).toMatchObject({ event: 'released', from: 'alice' });
  });

  it('calls a claim given back with a not-before time retried, with its time, lapsed or not', () => {
    const retried = change('[🟡, alice, 2026-12-01T09:50:00Z] Fix the login {writes: src/auth/}', '[ ] Fix the login {writes: src/auth/} // Attempts: 1, not before 2026-12-01T10:05:00Z');
    expect(diffEvents(before, retried, NOW)[0]).toEqual({
      at: NOW, id: expect.any(String), event: 'retried', from: 'alice', notBefore: '2026-12-01T10:05:00Z', text: 'Fix the login {writes: src/auth/}',
    });
    expect(diffEvents(before, change('[🟡, bob, 2026-12-01T09:59:00Z, 30s] Quick fix', '[ ] Quick fix // Attempts: 2, not before 2026-12-01T10:01:00Z'), NOW)).toMatchObject([{ event: 'retried', from: 'bob' }]);
  });

  it('sees no event in a renewal by the same holder, nor in an unchanged board', () => {
    expect(diffEvents(before, change('[🟡, alice, 2026-12-01T09:50:00Z]', '[🟡, alice, 2026-12-01T09:59:59Z]'), NOW)).toEqual([]);
    expect(diffEvents(before, tasks(BOARD), NOW)).toEqual([]);
    expect(diffEvents(before, tasks(BOARD + '- [ ] New one\n'), NOW)).toMatchObject([{ event: 'added', text: 'New one' }]);
  });
});

describe('the screen\'s lines', () => {
  // A wide character takes two columns, as a terminal shows it.
  const style: Style = { color: false, glyphs: true, width: (t) => [...t].reduce((w, ch) => w + (ch.codePointAt(0)! > 0x2e80 ? 2 : 1), 0) };

  it('cuts a line to the width between characters, a wide one counted twice', () => {
    expect(paint([['abcdef']], 4, style)).toBe('abc…');
    expect(paint([['ab'], ['漢字かな']], 5, style)).toBe('ab漢…');
    expect(paint([['ab'], ['cd']], 4, style)).toBe('abcd');
    expect(paint([['ab', 'red']], 10, { ...style, color: true })).toBe('\x1b[31mab\x1b[0m');
  });

  it('shares the rows among the blocks and says how many did not fit', () => {
    const block = (name: string, n: number) => ({ title: [[name]] as const, lines: Array.from({ length: n }, (_, i) => [[`${name}${i}`]] as const) });
    const text = (rows: number) => layout([block('a', 10), block('b', 1), block('c', 10)], rows).map((l) => l.map((s) => s[0]).join(''));
    // Round the blocks a line at a time: a gets 3, b its 1, c 2; a cut block's last line says what is left.
    expect(text(9)).toEqual(['a', 'a0', 'a1', '  … 8 more', 'b', 'b0', 'c', 'c0', '  … 9 more']);
    expect(text(100)).toHaveLength(24);
  });

  it('fills the screen exactly, each line within the width, however many sections and claims', () => {
    const md = Array.from({ length: 30 }, (_, i) => `# Section ${i}\n\n- [🟡, a${i}, 2026-12-01T09:59:00Z] Task ${i} ${'x'.repeat(200)}\n`).join('\n');
    const summary = summarize(tasks(md), NOW, {}, [], NOW);
    const lines = frameLines({ location: 'tasks.md', summary, events: [], nowMs: NOW, problem: null, help: false, columns: 80, rows: 40 }, style);
    expect(lines).toHaveLength(40);
    for (const l of lines) expect(style.width(l)).toBeLessThanOrEqual(80);
    expect(lines.join('\n')).toMatch(/… 23 more sections/);
    expect(lines.join('\n')).toMatch(/Claims \(30 live, 0 lapsed, 0 untimed\)/);
    expect(lines.join('\n')).toMatch(/… \d+ more/);
    expect(lines.at(-1)).toContain('q quit');
  });
});
