import { named } from '../../src/format/named.js';
import { expect, it } from 'vitest';
import { parseTasks, type PathLocking, type Task, type TaskBoard } from '../../src/index.js';
import { errorOf } from '../helpers/errors.js';
import { describeKinds } from './kinds.js';

// Path locks, written once for every board: declared paths in the claimable
// predicate, locks taken while working, and both leaving with the claim.

type PathBoard = TaskBoard & PathLocking;

function tasks(...lines: string[]): string {
  return '# Work\n\n' + lines.map((l) => (l.startsWith('- [') ? l : `- [ ] ${l}`)).join('\n') + '\n';
}

const idOf = async (b: TaskBoard, text: string) => (await b.list()).find((t) => t.text.startsWith(text))!.id;

/**
 * A short lease that is still live for the next few steps: a claim's time is
 * to the second, rounded down, so a 1s lease may run out a moment after the
 * claim; this one has two seconds at least.
 */
const LIVE = '3s';

/** Wait for a condition (the lease of a claim running out), not for a time. */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 50));
}

describeKinds('path locks on the $name board', (kind) => {
  async function make(...lines: string[]) {
    const m = await kind.make(tasks(...lines));
    return { ...m, board: m.board as PathBoard };
  }

  it('refuses to claim a task declaring a path that leaves the tree by id, as USAGE naming the line, and next passes over it; the board unchanged', async () => {
    const m = await make('A {writes: ../outside.ts}', 'B');
    const before = await m.bytes();
    const id = await idOf(m.board, 'A');
    const err = await errorOf(m.board.claim(id, { by: 'x' }));
    expect(err.code).toBe('USAGE');
    expect(err.message).toBe('line 3 declares path "../outside.ts" leaves the board\'s directory (fix the line to claim it)');
    expect((await m.bytes()).equals(before)).toBe(true);
    const passed: string[] = [];
    const b = await m.board.next({ by: 'x', onPassOver: (p) => passed.push(`${p.task.id} ${p.reason}`) });
    expect(b?.text).toBe('B');
    expect(passed).toEqual([`${id} line 3 declares path "../outside.ts" leaves the board's directory (fix the line to claim it)`]);
  });

  it('claims a good task above one declaring a bad path, then passes over the bad one, naming its line, and writes nothing', async () => {
    const m = await make('A {writes: src/a.ts}', 'B {writes: /etc/hosts}');
    expect((await m.board.next({ by: 'x' }))?.text).toBe('A {writes: src/a.ts}');
    const before = await m.bytes();
    const passed: string[] = [];
    expect(await m.board.next({ by: 'y', onPassOver: (p) => passed.push(p.reason) })).toBeNull();
    expect(passed).toEqual(['line 4 declares path "/etc/hosts" is absolute: paths are relative to the board\'s directory (fix the line to claim it)']);
    expect((await m.bytes()).equals(before)).toBe(true);
  });

  it('passes over a bad declaration below the task it takes when a live claim blocks a task above both', async () => {
    const m = await make('A {writes: src/}', 'B {writes: src/b.ts}', 'C {writes: lib/c.ts}', 'D {writes: ../x}');
    expect((await m.board.next({ by: 'x' }))?.text).toBe('A {writes: src/}');
    expect((await m.board.next({ by: 'y' }))?.text).toBe('C {writes: lib/c.ts}');
  });

  it('refuses to add a task declaring a path that leaves the tree, and adds one that declares good paths', async () => {
    const m = await make('A');
    const before = await m.bytes();
    expect((await errorOf(m.board.add('B {writes: src/../../x.ts}'))).message).toBe('the task declares path "src/../../x.ts" leaves the board\'s directory');
    expect((await m.bytes()).equals(before)).toBe(true);
    expect(await m.board.add('B {writes: ./src/x.ts} {be}')).toMatchObject({ writes: ['src/x.ts'], tags: ['be'] });
  });

  it('keeps a writer off a file and a directory a live claim writes, and says who holds what where', async () => {
    const b = await make('A {writes: src/auth/login.ts}', 'B {writes: ./src//auth/login.ts}', 'C {writes: src/auth/}', 'D {writes: src/other.ts}');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    expect(a.writes).toEqual(['src/auth/login.ts']);
    const before = await b.bytes();
    const err = await errorOf(b.board.claim(await idOf(b.board, 'B'), { by: 'eve' }));
    expect([err.code, err.message]).toEqual(['CONFLICT', `dana holds src/auth/login.ts (write) on ${named(a)}`]);
    // The same claimant too: two tasks in flight must not edit one file.
    expect((await errorOf(b.board.claim(await idOf(b.board, 'C'), { by: 'dana' }))).code).toBe('CONFLICT');
    expect((await b.bytes()).equals(before)).toBe(true);
    expect((await b.board.claim(await idOf(b.board, 'D'), { by: 'eve' })).by).toBe('eve');
  });

  it('lets readers share, keeps a writer off a read path and a reader off a written one; next skips blocked tasks', async () => {
    const b = await make('R1 {reads: docs/}', 'R2 {reads: docs/api.md}', 'W1 {writes: docs/api.md}', 'W2 {writes: lib/}', 'R3 {reads: lib/x.ts}', 'free');
    expect((await b.board.next({ by: 'a' }))?.text).toBe('R1 {reads: docs/}');
    expect((await b.board.next({ by: 'b' }))?.text).toBe('R2 {reads: docs/api.md}');
    // W1 writes what R1 and R2 read: next takes W2, then skips R3 (W2 writes lib/), and takes `free`.
    expect((await b.board.next({ by: 'c' }))?.text).toBe('W2 {writes: lib/}');
    expect((await b.board.next({ by: 'd' }))?.text).toBe('free');
    expect(await b.board.next({ by: 'e' })).toBeNull();
    expect((await b.board.paths()).map((h) => `${h.by} ${h.mode} ${h.path} ${h.kind}`)).toEqual(['a read docs/ declared', 'b read docs/api.md declared', 'c write lib/ declared']);
  });

  it('locks paths while working: visible in the board, refused to others, gone after done', async () => {
    const b = await make('A {writes: src/a.ts}', 'B {writes: src/b.ts}', 'C {reads: docs/api.md}');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    const locked = await b.board.lockPaths(a.id, { by: 'dana', claimedAt: a.claimedAt!, writes: ['docs/api.md'], reads: ['src/b.ts'] });
    expect(locked.locks?.map((l) => `${l.mode} ${l.path}`)).toEqual(['write docs/api.md', 'read src/b.ts']);
    const text = (await b.bytes()).toString();
    expect(text).toMatch(/\] A \{writes: src\/a\.ts\}\n  - 🔒 write docs\/api\.md since \S+Z\n  - 🔒 read src\/b\.ts since \S+Z\n- \[ \] B/);
    // What the board reads back from those bytes is what it holds.
    expect(parseTasks(text)[0]!.locks).toEqual(locked.locks);
    expect((await errorOf(b.board.claim(await idOf(b.board, 'B'), { by: 'eve' }))).message).toBe(`dana holds src/b.ts (read) on ${named(a)}`);
    expect((await errorOf(b.board.claim(await idOf(b.board, 'C'), { by: 'eve' }))).message).toBe(`dana holds docs/api.md (write) on ${named(a)}`);
    expect(await b.board.checkPaths({ by: 'dana', writes: ['docs/'] })).toHaveLength(1);
    expect((await errorOf(b.board.checkPaths({ by: 'eve', reads: ['docs/'] }))).message).toBe(`dana holds docs/api.md (write) on ${named(a)}`);
    expect(await b.board.checkPaths({ by: 'eve', reads: ['src/b.ts'] })).toEqual([]);
    await b.board.done(a.id, { by: 'dana', claimedAt: a.claimedAt! });
    expect((await b.bytes()).toString()).not.toContain('🔒');
    expect(await b.board.paths()).toEqual([]);
    expect((await b.board.claim(await idOf(b.board, 'B'), { by: 'eve' })).by).toBe('eve');
  });

  it('refuses a lock another claim holds, naming it, and unlocks only what is locked', async () => {
    const b = await make('A {writes: src/a.ts}', 'B');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    const t = await b.board.claim(await idOf(b.board, 'B'), { by: 'eve' });
    const before = await b.bytes();
    const err = await errorOf(b.board.lockPaths(t.id, { by: 'eve', writes: ['src/'] }));
    expect([err.code, err.message]).toEqual(['CONFLICT', `dana holds src/a.ts (write) on ${named(a)}`]);
    expect((await errorOf(b.board.lockPaths(t.id, { by: 'dana', writes: ['lib/'] }))).code).toBe('CONFLICT');
    expect((await errorOf(b.board.unlockPaths(a.id, { by: 'dana', paths: ['src/a.ts'] }))).code).toBe('NOT_FOUND');
    expect((await b.bytes()).equals(before)).toBe(true);
    await b.board.lockPaths(t.id, { by: 'eve', reads: ['lib/'], writes: ['lib/x.ts'] });
    const after = await b.board.unlockPaths(t.id, { by: 'eve', paths: ['lib/'] });
    expect(after.locks).toEqual([expect.objectContaining({ mode: 'write', path: 'lib/x.ts' })]);
    expect((await b.board.unlockPaths(t.id, { by: 'eve' })).locks).toBeUndefined();
    expect((await b.bytes()).toString()).not.toContain('🔒');
  });

  // The tests that wait for a lease to run out run at once: each has a board of its own.
  it.concurrent('drops the paths with release and reap, and a lapsed claim holds nothing', async () => {
    const b = await make('- [🟡, ghost, 2020-01-01T00:00:00Z] old {writes: src/a.ts}', 'A {writes: src/a.ts}', 'B {writes: lib/}', 'C {writes: lib/x.ts}');
    // The lapsed claim holds nothing: A is claimable.
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    await b.board.lockPaths(a.id, { by: 'dana', writes: ['docs/'] });
    await b.board.release(a.id, { by: 'dana' });
    expect((await b.bytes()).toString()).not.toContain('🔒');
    expect(await b.board.paths()).toEqual([]);
    const t = await b.board.claim(await idOf(b.board, 'B'), { by: 'eve', lease: LIVE });
    await b.board.lockPaths(t.id, { by: 'eve', writes: ['docs/'] });
    expect((await errorOf(b.board.claim(await idOf(b.board, 'C'), { by: 'fay' }))).code).toBe('CONFLICT');
    await until(() => Date.now() >= Date.parse(t.expiresAt!) + 1000);
    expect(await b.board.paths()).toEqual([]);
    const reaped = await b.board.reap();
    expect(reaped.map((r) => r.by).sort()).toEqual(['eve', 'ghost']);
    expect((await b.bytes()).toString()).not.toContain('🔒');
    expect((await b.board.claim(await idOf(b.board, 'C'), { by: 'fay' })).by).toBe('fay');
  });

  it.concurrent("drops a lapsed claim's locks when another takes the task over", async () => {
    const b = await make('A {writes: src/a.ts}', 'B {writes: docs/}');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana', lease: LIVE });
    await b.board.lockPaths(a.id, { by: 'dana', writes: ['docs/api.md'] });
    expect((await b.bytes()).toString()).toContain('🔒 write docs/api.md');
    await until(() => Date.now() >= Date.parse(a.expiresAt!) + 1000);
    const taken: Task = await b.board.claim(a.id, { by: 'eve' });
    expect([taken.by, taken.locks]).toEqual(['eve', undefined]);
    expect((await b.bytes()).toString()).not.toContain('🔒');
    expect((await b.board.paths()).map((h) => `${h.by} ${h.path}`)).toEqual(['eve src/a.ts']);
    expect((await b.board.claim(await idOf(b.board, 'B'), { by: 'fay' })).by).toBe('fay');
  });

  it.concurrent('refuses to renew a lapsed claim whose paths another claim holds now, and renews one whose paths are free', async () => {
    const b = await make('A {writes: src/a.ts}', 'B {writes: src/}', 'C {writes: lib/x.ts}', 'D {writes: docs/}');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana', lease: LIVE });
    await b.board.lockPaths(a.id, { by: 'dana', writes: ['docs/api.md'] });
    const c = await b.board.claim(await idOf(b.board, 'C'), { by: 'dana', lease: LIVE });
    await until(() => Date.now() >= Date.parse(a.expiresAt!) + 1000 && Date.now() >= Date.parse(c.expiresAt!) + 1000);
    // Lapsed, A held nothing: eve claims B, whose src/ covers A's src/a.ts.
    const taken = await b.board.claim(await idOf(b.board, 'B'), { by: 'eve' });
    const before = await b.bytes();
    const err = await errorOf(b.board.heartbeat(a.id, { by: 'dana', claimedAt: a.claimedAt }));
    expect([err.code, err.message, err.holder]).toEqual(['CONFLICT', `${named(a)}: the claim by dana lapsed, and eve holds src/ (write) on ${named(taken)} now, so it cannot be renewed`, 'eve']);
    expect((await b.bytes()).equals(before)).toBe(true);
    expect((await b.board.paths()).map((h) => `${h.by} ${h.path}`)).toEqual(['eve src/']);
    // A lock line counts too: fay takes D (docs/), in the way of A's lock on docs/api.md, once B is done.
    await b.board.done(taken.id, { by: 'eve' });
    const d = await b.board.claim(await idOf(b.board, 'D'), { by: 'fay' });
    const err2 = await errorOf(b.board.heartbeat(a.id, { by: 'dana', claimedAt: a.claimedAt }));
    expect([err2.code, err2.message]).toEqual(['CONFLICT', `${named(a)}: the claim by dana lapsed, and fay holds docs/ (write) on ${named(d)} now, so it cannot be renewed`]);
    // C's paths are nobody else's: its lapsed claim is renewed, and holds them again.
    const renewed = await b.board.heartbeat(c.id, { by: 'dana', claimedAt: c.claimedAt });
    expect(renewed.by).toBe('dana');
    expect((await b.board.paths()).map((h) => `${h.by} ${h.path}`).sort()).toEqual(['dana lib/x.ts', 'fay docs/']);
  });

  it('starts a new claim on an open task without the orphan lock lines it was written with, by next and by id', async () => {
    for (const how of ['next', 'id'] as const) {
      const b = await make('A\n  - 🔒 write src/secret since 2026-11-30T04:10:00Z', 'B {writes: src/}');
      const a = how === 'next' ? (await b.board.next({ by: 'dana' }))! : await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
      expect([a.text, a.locks]).toEqual(['A', undefined]);
      expect((await b.bytes()).toString()).not.toContain('🔒');
      expect(await b.board.paths()).toEqual([]);
      // Nothing of the orphan line is in the way of a task that writes under it.
      expect((await b.board.claim(await idOf(b.board, 'B'), { by: 'eve' })).by).toBe('eve');
    }
  });

  it('keeps the locks of a live claim its holder renews by heartbeat, and refuses its holder a claim of it', async () => {
    const b = await make('A {writes: src/a.ts}', 'B');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    await b.board.lockPaths(a.id, { by: 'dana', writes: ['docs/api.md'] });
    expect((await errorOf(b.board.claim(a.id, { by: 'dana' }))).message).toMatch(/heartbeat renews it/);
    const renewed = await b.board.heartbeat(a.id, { by: 'dana' });
    expect(renewed.locks?.map((l) => `${l.mode} ${l.path}`)).toEqual(['write docs/api.md']);
  });

  it('counts lock lines in the line numbers of the tasks below them, as the file has them', async () => {
    const b = await make('A {writes: src/a.ts}', 'B', 'C');
    const a = await b.board.claim(await idOf(b.board, 'A'), { by: 'dana' });
    await b.board.lockPaths(a.id, { by: 'dana', writes: ['docs/api.md', 'lib/'] });
    const lines = (await b.bytes()).toString().split('\n');
    const lineOf = (text: string) => lines.findIndex((l) => l.endsWith(`] ${text}`)) + 1;
    expect(lineOf('B')).toBe(6);
    const listed = await b.board.list();
    expect(listed.map((t) => [t.text.slice(0, 1), t.line])).toEqual([['A', 3], ['B', lineOf('B')], ['C', lineOf('C')]]);
    // One task's own line, as a transition returns it.
    const c = await b.board.claim(await idOf(b.board, 'C'), { by: 'eve' });
    expect(c.line).toBe(lineOf('C'));
  });

  it('reads lock lines from the document it is given and writes them back byte for byte', async () => {
    const doc = [
      '# Work',
      '',
      '- [🟡, dana] A {writes: src/a.ts}',
      '  - 🔒 write docs/api.md since 2026-11-30T04:10:00Z',
      '  - 🔒 read lib/ since 2026-11-30T04:11:00Z',
      '- [ ] B {writes: docs/}',
      '- [ ] C {writes: lib/x.ts}',
      '- [ ] D {reads: lib/}',
      '',
    ].join('\n');
    const m = await kind.make(doc);
    const b = m.board as PathBoard;
    expect((await m.bytes()).toString()).toBe(doc);
    expect((await b.paths()).map((h) => `${h.mode} ${h.path} ${h.kind} ${h.since ?? '-'}`)).toEqual([
      'write src/a.ts declared -',
      'write docs/api.md locked 2026-11-30T04:10:00Z',
      'read lib/ locked 2026-11-30T04:11:00Z',
    ]);
    expect(await b.next({ by: 'eve' })).toEqual(expect.objectContaining({ text: 'D {reads: lib/}' }));
    const a = await idOf(b, 'A');
    await b.unlockPaths(a, { by: 'dana', paths: ['docs/api.md'] });
    expect((await b.claim(await idOf(b, 'B'), { by: 'fay' })).by).toBe('fay');
    await b.done(a, { by: 'dana' });
    expect((await m.bytes()).toString()).not.toContain('🔒');
  });
});
