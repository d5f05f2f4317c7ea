import { named } from '../src/format/named.js';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard, parseTasks, type Task } from '../src/index.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const T0 = Date.parse('2026-11-30T04:00:00Z');
const at = (ms: number) => () => ms;
const idOf = (file: string, text: string) => parseTasks(read(file)).find((t) => t.text.startsWith(text))!.id;


/** A board of open tasks, one line each. */
function tasks(...lines: string[]): string {
  return '# Work\n\n' + lines.map((l) => `- [ ] ${l}`).join('\n') + '\n';
}

/** Claim `text` by `by`, then try `other` by `who`: the CONFLICT (or the task) that comes back, and whether the file stayed as it was. */
async function claimBoth(board: string, first: string, other: string, who = 'eve') {
  const file = boardFile(board);
  const b = openBoard(file, { now: at(T0) });
  await b.claim(idOf(file, first), { by: 'dana' });
  const before = bytesOf(file);
  try {
    return { task: await b.claim(idOf(file, other), { by: who }), untouched: true };
  } catch (err) {
    return { err: err as MdclaimError, untouched: bytesOf(file).equals(before) };
  }
}

describe('the claimable predicate with paths', () => {
  it('refuses a task writing a file a live claim writes, naming holder, path and task in one line', async () => {
    const r = await claimBoth(tasks('A {writes: src/auth/login.ts}', 'B {writes: ./src//auth/login.ts}'), 'A', 'B');
    expect(r.err?.code).toBe('CONFLICT');
    expect(r.err?.holder).toBe('dana');
    expect(r.err?.message).toMatch(/^dana holds src\/auth\/login\.ts \(write\) on [0-9a-f]{12} "A \{writes: src\/auth\/login\.ts\}"$/);
    expect(r.untouched).toBe(true);
  });

  it('refuses by directory, both ways', async () => {
    const dirFirst = await claimBoth(tasks('A {writes: src/auth/}', 'B {writes: src/auth/deep/session.ts}'), 'A', 'B');
    expect(dirFirst.err?.message).toMatch(/^dana holds src\/auth\/ \(write\)/);
    const fileFirst = await claimBoth(tasks('A {reads: src/auth/login.ts}', 'B {writes: src/}'), 'A', 'B');
    expect(fileFirst.err?.message).toMatch(/^dana holds src\/auth\/login\.ts \(read\)/);
    // A sibling directory whose name starts the same is not under it.
    expect((await claimBoth(tasks('A {writes: src/auth/}', 'B {writes: src/authz/x.ts}'), 'A', 'B')).task?.status).toBe('claimed');
  });

  it('lets readers share a path', async () => {
    const r = await claimBoth(tasks('A {reads: docs/api.md}', 'B {reads: docs/}'), 'A', 'B');
    expect(r.task).toMatchObject({ status: 'claimed', by: 'eve', reads: ['docs/'] });
  });

  it('blocks a writer behind a reader, and a reader behind a writer', async () => {
    expect((await claimBoth(tasks('A {reads: docs/api.md}', 'B {writes: docs/api.md}'), 'A', 'B')).err?.message).toMatch(/^dana holds docs\/api\.md \(read\)/);
    expect((await claimBoth(tasks('A {writes: docs/api.md}', 'B {reads: docs/api.md}'), 'A', 'B')).err?.message).toMatch(/^dana holds docs\/api\.md \(write\)/);
  });

  it('blocks the same claimant too: two of its tasks in flight must not edit one file', async () => {
    const r = await claimBoth(tasks('A {writes: a.ts}', 'B {writes: a.ts}'), 'A', 'B', 'dana');
    expect(r.err?.message).toMatch(/^dana holds a\.ts \(write\)/);
  });

  it('lets tasks that declare nothing, or other paths, be claimed', async () => {
    expect((await claimBoth(tasks('A {writes: a.ts}', 'B {backend}'), 'A', 'B')).task?.status).toBe('claimed');
    expect((await claimBoth(tasks('A {writes: a.ts}', 'B {writes: b.ts} {reads: c/}'), 'A', 'B')).task?.status).toBe('claimed');
  });

  it('counts a lapsed claim as holding nothing', async () => {
    const file = boardFile(tasks('A {writes: a.ts}', 'B {writes: a.ts}'));
    await openBoard(file, { now: at(T0) }).claim(idOf(file, 'A'), { by: 'dana', lease: '10m' });
    const later = openBoard(file, { now: at(T0 + 9 * 60_000) });
    expect((await errorOf(later.claim(idOf(file, 'B'), { by: 'eve' }))).code).toBe('CONFLICT');
    const lapsed = openBoard(file, { now: at(T0 + 10 * 60_000) });
    expect(await lapsed.claim(idOf(file, 'B'), { by: 'eve' })).toMatchObject({ status: 'claimed', by: 'eve' });
  });

  it('counts an untimed ADW claim as live: it never lapses', async () => {
    const file = boardFile('[🟡, cc73faf1] A {writes: a.ts}\n[] B {writes: a.ts}\n');
    expect((await errorOf(openBoard(file).claim(idOf(file, 'B'), { by: 'eve' }))).message).toMatch(/^cc73faf1 holds a\.ts/);
  });

  it('has next skip path-blocked tasks, including one blocked by a claim further down', async () => {
    const file = boardFile(tasks('A {writes: a.ts}', 'B {writes: lib/}', 'C {writes: a.ts}', 'D {reads: lib/x.ts}', 'E free'));
    const b = openBoard(file, { now: at(T0) });
    await b.claim(idOf(file, 'B'), { by: 'dana' });
    await b.claim(idOf(file, 'A'), { by: 'dana' });
    // C waits on A (above it), D on B (above it): the first free task is E.
    expect((await b.next({ by: 'eve' }))?.text).toBe('E free');
    expect(await b.next({ by: 'eve' })).toBeNull();

    const below = boardFile(tasks('X {writes: z/}', 'Y first free', 'Z {writes: z/q.ts}'));
    const c = openBoard(below, { now: at(T0) });
    await c.claim(idOf(below, 'Z'), { by: 'dana' });
    // X comes first in the file, but the claim on Z, below it, holds z/q.ts.
    expect((await c.next({ by: 'eve' }))?.text).toBe('Y first free');
  });

  it('has next take a path-declaring task when nothing is in its way, in file order', async () => {
    const file = boardFile(tasks('A {writes: a.ts}', 'B {writes: b.ts}', 'C'));
    const b = openBoard(file, { now: at(T0) });
    expect((await b.next({ by: 'x' }))?.text).toBe('A {writes: a.ts}');
    expect((await b.next({ by: 'x' }))?.text).toBe('B {writes: b.ts}');
    expect((await b.next({ by: 'x' }))?.text).toBe('C');
  });
});

describe('path locks', () => {
  const LINE = /^ {2}- 🔒 (write|read) \S+ since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

  async function held(board = tasks('A {writes: src/a.ts}', 'B other', 'C third')) {
    const file = boardFile(board);
    const b = openBoard(file, { now: at(T0) });
    const a = await b.claim(idOf(file, 'A'), { by: 'dana' });
    return { file, b, a };
  }

  it('are written under the task, readable with cat, and leave with done', async () => {
    const { file, b, a } = await held();
    const original = read(file);
    const t = await b.lockPaths(a.id, { by: 'dana', writes: ['src/b.ts'], reads: ['docs/'] });
    expect(t.locks).toEqual([
      { mode: 'write', path: 'src/b.ts', since: '2026-11-30T04:00:00Z' },
      { mode: 'read', path: 'docs/', since: '2026-11-30T04:00:00Z' },
    ]);
    const lines = read(file).split('\n');
    expect(lines.slice(3, 5)).toEqual(['  - 🔒 write src/b.ts since 2026-11-30T04:00:00Z', '  - 🔒 read docs/ since 2026-11-30T04:00:00Z']);
    expect(lines.slice(3, 5).every((l) => LINE.test(l))).toBe(true);
    // Still three tasks, each reading as before.
    expect(parseTasks(read(file)).map((t) => [t.text, t.status])).toEqual(parseTasks(original).map((t) => [t.text, t.status]));
    expect(await b.paths()).toEqual([
      { path: 'src/a.ts', mode: 'write', task: a.id, by: 'dana', since: '2026-11-30T04:00:00Z', kind: 'declared' },
      { path: 'src/b.ts', mode: 'write', task: a.id, by: 'dana', since: '2026-11-30T04:00:00Z', kind: 'locked' },
      { path: 'docs/', mode: 'read', task: a.id, by: 'dana', since: '2026-11-30T04:00:00Z', kind: 'locked' },
    ]);
    const done = await b.done(a.id, { by: 'dana' });
    expect(done).not.toHaveProperty('locks');
    expect(read(file)).not.toContain('🔒');
    expect(read(file)).toBe(original.replace(/\[🟡[^\]]*\]/, '[✅, dana]'));
    expect(await b.paths()).toEqual([]);
  });

  it('block other claims and locks like declared paths, and refusals write nothing', async () => {
    const { file, b, a } = await held(tasks('A', 'B {writes: src/b.ts}', 'C {reads: docs/x.md}', 'D'));
    await b.lockPaths(a.id, { by: 'dana', writes: ['src/b.ts', 'docs/'] });
    const before = bytesOf(file);
    expect((await errorOf(b.claim(idOf(file, 'B'), { by: 'eve' }))).message).toBe(`dana holds src/b.ts (write) on ${named(a)}`);
    expect((await errorOf(b.claim(idOf(file, 'C'), { by: 'eve' }))).message).toBe(`dana holds docs/ (write) on ${named(a)}`);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect((await b.next({ by: 'eve' }))?.text).toBe('D');
    const claimed = bytesOf(file);
    const err = await errorOf(b.lockPaths(idOf(file, 'D'), { by: 'eve', reads: ['docs/api.md'] }));
    expect([err.code, err.holder, err.message]).toEqual(['CONFLICT', 'dana', `dana holds docs/ (write) on ${named(a)}`]);
    expect(bytesOf(file).equals(claimed)).toBe(true);
  });

  it('let readers share, including a read lock beside a declared read', async () => {
    const { b, file } = await held(tasks('A {reads: docs/}', 'B'));
    const other = await b.claim(idOf(file, 'B'), { by: 'eve' });
    expect((await b.lockPaths(other.id, { by: 'eve', reads: ['docs/api.md'] })).locks).toHaveLength(1);
    expect((await errorOf(b.lockPaths(other.id, { by: 'eve', writes: ['docs/api.md'] }))).message).toMatch(/^dana holds docs\/ \(read\)/);
  });

  it('are taken once: a path already held in that mode adds no line, a write replaces a read lock', async () => {
    const { file, b, a } = await held(tasks('A {writes: src/a.ts} {reads: docs/}', 'B'));
    const same = bytesOf(file);
    await b.lockPaths(a.id, { by: 'dana', writes: ['./src/a.ts'], reads: ['docs/'] });
    expect(bytesOf(file).equals(same)).toBe(true);
    await b.lockPaths(a.id, { by: 'dana', reads: ['x.ts'] });
    await b.lockPaths(a.id, { by: 'dana', reads: ['x.ts'] });
    expect((await b.lockPaths(a.id, { by: 'dana', writes: ['x.ts'] })).locks).toEqual([{ mode: 'write', path: 'x.ts', since: '2026-11-30T04:00:00Z' }]);
    expect(read(file).match(/🔒/g)).toHaveLength(1);
  });

  it('are the holder’s only, fenced to the claim, and never on a lapsed claim', async () => {
    const { file, b, a } = await held();
    const before = bytesOf(file);
    expect((await errorOf(b.lockPaths(a.id, { by: 'eve', writes: ['x'] }))).message).toMatch(/claimed by dana, not eve/);
    expect((await errorOf(b.lockPaths(a.id, { by: 'dana', claimedAt: '2026-11-30T03:00:00Z', writes: ['x'] }))).code).toBe('CONFLICT');
    expect((await errorOf(openBoard(file, { now: at(T0 + 30 * 60_000) }).lockPaths(a.id, { by: 'dana', writes: ['x'] }))).message).toMatch(/lapsed at 2026-11-30T04:30:00Z/);
    expect((await errorOf(b.lockPaths(a.id, { by: 'dana', writes: ['../x'] }))).code).toBe('USAGE');
    expect((await errorOf(b.lockPaths(a.id, { by: 'dana' }))).code).toBe('USAGE');
    expect(bytesOf(file).equals(before)).toBe(true);
    expect((await b.lockPaths(a.id, { by: 'dana', claimedAt: a.claimedAt!, writes: ['x'] })).locks).toHaveLength(1);
  });

  it('unlock by path or all at once; a path not locked is NOT_FOUND, a declared one cannot be unlocked', async () => {
    const { file, b, a } = await held();
    const original = read(file);
    await b.lockPaths(a.id, { by: 'dana', writes: ['x.ts', 'y.ts'], reads: ['z/'] });
    const t = await b.unlockPaths(a.id, { by: 'dana', paths: ['./y.ts'] });
    expect(t.locks?.map((l) => l.path)).toEqual(['x.ts', 'z/']);
    const before = bytesOf(file);
    expect((await errorOf(b.unlockPaths(a.id, { by: 'dana', paths: ['y.ts'] }))).code).toBe('NOT_FOUND');
    expect((await errorOf(b.unlockPaths(a.id, { by: 'dana', paths: ['src/a.ts'] }))).message).toMatch(/declared on the task's line/);
    expect((await errorOf(b.unlockPaths(a.id, { by: 'eve' }))).code).toBe('CONFLICT');
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(await b.unlockPaths(a.id, { by: 'dana' })).not.toHaveProperty('locks');
    expect(read(file)).toBe(original);
  });

  it('leave with fail and release, and a heartbeat keeps them', async () => {
    for (const end of ['fail', 'release'] as const) {
      const { file, b, a } = await held();
      const original = read(file);
      await b.lockPaths(a.id, { by: 'dana', writes: ['x.ts'] });
      const beat = await openBoard(file, { now: at(T0 + 60_000) }).heartbeat(a.id, { by: 'dana' });
      expect(beat.locks).toHaveLength(1);
      expect(await b[end](a.id, { by: 'dana' })).not.toHaveProperty('locks');
      expect(read(file)).not.toContain('🔒');
      if (end === 'release') expect(read(file)).toBe(original.replace(/\[🟡[^\]]*\]/, '[ ]'));
    }
  });

  it('leave with a reap, in the same write, and a live claim keeps its own', async () => {
    const file = boardFile(tasks('A', 'B', 'C'));
    const b = openBoard(file, { now: at(T0) });
    const a = await b.claim(idOf(file, 'A'), { by: 'dana', lease: '5m' });
    const c = await b.claim(idOf(file, 'C'), { by: 'eve', lease: '1h' });
    await b.lockPaths(a.id, { by: 'dana', writes: ['a.ts'] });
    await b.lockPaths(c.id, { by: 'eve', writes: ['c.ts'] });
    const reaped = await openBoard(file, { now: at(T0 + 5 * 60_000) }).reap();
    expect(reaped.map((t) => [t.text, t.locks?.map((l) => l.path)])).toEqual([['A', ['a.ts']]]);
    expect(read(file)).toBe('# Work\n\n- [ ] A\n- [ ] B\n- [🟡, eve, 2026-11-30T04:00:00Z, 1h] C\n  - 🔒 write c.ts since 2026-11-30T04:00:00Z\n');
  });

  it('leave with a takeover of a lapsed claim: the new holder starts with the declared paths only', async () => {
    const { file, b, a } = await held();
    await b.lockPaths(a.id, { by: 'dana', writes: ['extra.ts'] });
    const later = openBoard(file, { now: at(T0 + 30 * 60_000) });
    // Lapsed: dana's lock holds nothing, so another task may take extra.ts.
    const other = await later.claim(idOf(file, 'B'), { by: 'frank' });
    expect((await later.lockPaths(other.id, { by: 'frank', writes: ['extra.ts'] })).locks).toHaveLength(1);
    const taken = await later.claim(a.id, { by: 'eve' });
    expect(taken).toMatchObject({ by: 'eve', writes: ['src/a.ts'] });
    expect(taken).not.toHaveProperty('locks');
    expect(read(file).match(/🔒/g)).toHaveLength(1); // frank's, under B
    expect((await later.paths()).map((h) => [h.path, h.by])).toEqual([
      ['src/a.ts', 'eve'],
      ['extra.ts', 'frank'],
    ]);
  });

  it('stay through a heartbeat of one’s own live claim', async () => {
    const { b, a } = await held();
    await b.lockPaths(a.id, { by: 'dana', writes: ['x.ts'] });
    expect((await b.heartbeat(a.id, { by: 'dana' })).locks).toHaveLength(1);
  });

  it('come back byte for byte on bare ADW lines, nested and numbered items, CRLF and a missing final newline', async () => {
    const boards = [
      '## Git Worktree api\n[] A first\n[] B second\n[] C third\n',
      '1. [ ] A one\n2. [ ] B two\n   - [ ] C nested\n     continued text\n',
      '- [ ] A crlf\r\n- [ ] B crlf\r\n',
      '- [ ] A\n- [ ] C last line without newline',
      'Intro paragraph\n[ ] A lazy task line\n[ ] C another\n\n> - [ ] quoted, no task\n',
    ];
    for (const board of boards) {
      const file = boardFile(board);
      const b = openBoard(file, { now: at(T0) });
      const before = parseTasks(board);
      expect(before.length).toBeGreaterThan(1);
      for (const target of before) {
        const t = await b.claim(target.id, { by: 'dana' });
        await b.lockPaths(t.id, { by: 'dana', writes: ['w.ts'], reads: ['r/'] });
        const now = parseTasks(read(file));
        expect(now.map((x) => x.text)).toEqual(before.map((x) => x.text));
        expect(now.filter((x) => x.locks).map((x) => x.text)).toEqual([target.text]);
        await b.release(t.id, { by: 'dana' });
        // The board as it was, a bare `[]` too.
        expect(read(file)).toBe(board);
      }
    }
  });

  it('checkPaths: yes when no other live claim is in the way, with the caller’s own holds; CONFLICT naming the holder otherwise', async () => {
    const { b, a } = await held(tasks('A {writes: src/a.ts} {reads: docs/}', 'B'));
    expect(await b.checkPaths({ by: 'eve', writes: ['lib/'] })).toEqual([]);
    expect(await b.checkPaths({ by: 'eve', reads: ['docs/api.md'] })).toEqual([]);
    expect((await b.checkPaths({ by: 'dana', writes: ['src/'] })).map((h) => h.path)).toEqual(['src/a.ts']);
    const err = await errorOf(b.checkPaths({ by: 'eve', writes: ['docs/api.md'] }));
    expect([err.code, err.holder, err.message]).toEqual(['CONFLICT', 'dana', `dana holds docs/ (read) on ${named(a)}`]);
    expect((await errorOf(b.checkPaths({ by: 'eve' }))).code).toBe('USAGE');
  });

  it('are no task, and a hand-written lock line under an open task holds nothing and goes with the next claim', async () => {
    const board = '- [ ] A\n  - 🔒 write a.ts\n- [ ] B {writes: a.ts}\n';
    const file = boardFile(board);
    const b = openBoard(file, { now: at(T0) });
    expect((await b.list()).map((t: Task) => t.text)).toEqual(['A', 'B {writes: a.ts}']);
    expect(await b.paths()).toEqual([]);
    await b.claim(idOf(file, 'B'), { by: 'eve' });
    const a = await b.claim(idOf(file, 'A'), { by: 'dana' });
    expect(a).not.toHaveProperty('locks');
    expect(read(file)).toBe('- [🟡, dana, 2026-11-30T04:00:00Z] A\n- [🟡, eve, 2026-11-30T04:00:00Z] B {writes: a.ts}\n');
  });
});
