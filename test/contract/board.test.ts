import { named } from '../../src/format/named.js';
import { expect, it } from 'vitest';
import { MdclaimError, parseTasks, type Task } from '../../src/index.js';
import { describeKinds, fileKind } from './kinds.js';

// The board contract, written once: every kind of board gives the same
// tasks, the same transitions, the same errors and the same bytes.

const BOARD = [
  '# Project',
  '',
  'Some prose, and a [link] that is no task.',
  '',
  '## Git Worktree api',
  '- [ ] PLAT-1 Add the /health endpoint {backend}',
  '- [⏰] Document every route {docs}',
  '',
  '## Frontend',
  '1. [x] Set up the app',
  '2. [ ] Build the login page {frontend, ui}',
  '3. [⏰] Ship it',
  '',
  '```',
  '- [ ] not a task: code',
  '```',
  '',
].join('\n');

/** What a Task says about the line, without the claim's derived fields (which only the claim semantics add). */
function plain(tasks: Task[]): Task[] {
  return tasks.map(({ lease: _l, expiresAt: _e, ...t }) => t);
}

const pause = () => new Promise((r) => setTimeout(r, 50));

const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g;

async function conflict(p: Promise<unknown>): Promise<MdclaimError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MdclaimError);
  return err as MdclaimError;
}

describeKinds('the $name board', (kind) => {
  it('lists the tasks the file format reads, in board order, with the same ids', async () => {
    const b = await kind.make(BOARD);
    expect(plain(await b.board.list())).toEqual(plain(parseTasks(BOARD)));
    expect((await b.bytes()).toString()).toBe(BOARD);
  });

  it('claims the first claimable task and changes only its marker', async () => {
    const b = await kind.make(BOARD);
    const t = await b.board.next({ by: 'agent-7' });
    expect(t).toMatchObject({ id: 'PLAT-1', status: 'claimed', by: 'agent-7', line: 6, section: 'Git Worktree api' });
    expect(t!.claimedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await b.bytes()).toString()).toBe(BOARD.replace('- [ ] PLAT-1', `- [🟡, agent-7, ${t!.claimedAt}] PLAT-1`));
    expect(plain(await b.board.list())).toEqual(plain(parseTasks(await b.bytes())));
  });

  it('filters next by every tag and by section or worktree name', async () => {
    const b = await kind.make(BOARD);
    expect(await b.board.next({ by: 'a', tags: ['frontend', 'ui'] })).toMatchObject({ text: 'Build the login page {frontend, ui}' });
    expect(await b.board.next({ by: 'a', tags: ['frontend', 'nope'] })).toBeNull();
    expect(await b.board.next({ by: 'a', section: 'api' })).toMatchObject({ id: 'PLAT-1' });
    expect(await b.board.next({ by: 'a', section: 'Frontend' })).toBeNull(); // Ship it is blocked by the login page
  });

  it('keeps a ⏰ blocked until every task above it in its section is done, and a failure keeps it blocked', async () => {
    const b = await kind.make(BOARD);
    const first = (await b.board.next({ by: 'a', section: 'api' }))!;
    expect(await b.board.next({ by: 'b', section: 'api' })).toBeNull();
    const blocked = (await b.board.list()).find((t) => t.status === 'blocked')!;
    expect((await conflict(b.board.claim(blocked.id, { by: 'b' }))).message).toMatch(/is blocked/);
    await b.board.done(first.id, { by: 'a' });
    expect(await b.board.next({ by: 'b', section: 'api' })).toMatchObject({ text: 'Document every route {docs}', by: 'b' });
    // In the other section, a failure above leaves the ⏰ blocked for good.
    const login = (await b.board.next({ by: 'c', section: 'Frontend' }))!;
    await b.board.fail(login.id, { by: 'c', reason: 'no' });
    expect(await b.board.next({ by: 'd' })).toBeNull();
  });

  it('returns null when nothing is claimable, and writes nothing', async () => {
    const doc = '- [x] done\n- [❌, a] failed // Failed: x\n';
    const b = await kind.make(doc);
    expect(await b.board.next({ by: 'a' })).toBeNull();
    expect((await b.bytes()).toString()).toBe(doc);
  });

  it('reads a hand-typed non-ASCII claimant and commit as the text typed, in lists and in messages', async () => {
    const doc = '- [🟡, José, 2099-01-01T00:00:00Z] mine {writes: src/}\n- [🟡, Zoë] untimed\n- [✅ café, Søren] done\n- [ ] other {writes: src/a.ts}\n';
    const b = await kind.make(doc);
    expect((await b.board.list()).map((t) => [t.by, t.commit])).toEqual([['José', undefined], ['Zoë', undefined], ['Søren', 'café'], [undefined, undefined]]);
    const id = (await b.board.list())[0]!.id;
    expect((await conflict(b.board.claim(id, { by: 'b' }))).message).toMatch(/^\S+ "mine \{writes: src\/\}" already claimed by José since 2099-01-01T00:00:00Z$/);
    const held = await conflict(b.board.claim((await b.board.list())[3]!.id, { by: 'b' }));
    expect(held).toMatchObject({ code: 'CONFLICT', holder: 'José' });
    expect(held.message).toMatch(/^José holds src\/ \(write\) on /);
    expect((await b.bytes()).toString()).toBe(doc);
  });

  it('refuses a claim held by another, naming the holder, and leaves the bytes as they were', async () => {
    const b = await kind.make(BOARD);
    const t = (await b.board.claim('PLAT-1', { by: 'a' }))!;
    const before = await b.bytes();
    const err = await conflict(b.board.claim('PLAT-1', { by: 'b' }));
    expect(err.code).toBe('CONFLICT');
    expect(err.holder).toBe('a');
    expect(err.message).toBe(`PLAT-1 "Add the /health endpoint {backend}" already claimed by a since ${t.claimedAt}`);
    expect(await b.bytes()).toEqual(before);
    expect((await conflict(b.board.claim('NOPE-9', { by: 'b' }))).code).toBe('NOT_FOUND');
  });

  it('lets only the holder heartbeat, finish, fail or release', async () => {
    const b = await kind.make(BOARD);
    await b.board.claim('PLAT-1', { by: 'a' });
    const before = await b.bytes();
    for (const op of ['heartbeat', 'done', 'fail', 'release'] as const) {
      const err = await conflict(b.board[op]('PLAT-1', { by: 'b' }));
      expect(err.code).toBe('CONFLICT');
      expect(err.message).toBe('PLAT-1 "Add the /health endpoint {backend}" is claimed by a, not b');
      expect(err.holder).toBe('a');
    }
    expect(await b.bytes()).toEqual(before);
    expect((await conflict(b.board.done('NOPE-9', { by: 'a' }))).code).toBe('NOT_FOUND');
    const open = (await b.board.list()).find((t) => t.status === 'open')!;
    expect((await conflict(b.board.release(open.id, { by: 'a' }))).message).toBe(`${named(open)} is not claimed by anyone (it is open)`);
  });

  it('writes done with its commit, fail with its reason on the line, release back to `[ ]`', async () => {
    const doc = '- [ ] one\n- [ ] two\n- [ ] three   \n';
    const b = await kind.make(doc);
    const one = (await b.board.next({ by: 'a' }))!;
    const two = (await b.board.next({ by: 'a' }))!;
    const three = (await b.board.next({ by: 'a' }))!;
    expect(await b.board.done(one.id, { by: 'a', commit: 'abc123' })).toMatchObject({ status: 'done', by: 'a', commit: 'abc123' });
    expect(await b.board.fail(two.id, { by: 'a', reason: 'tests\nfailed' })).toMatchObject({ status: 'failed', reason: 'tests failed' });
    expect(await b.board.release(three.id, { by: 'a' })).toMatchObject({ status: 'open' });
    expect((await b.bytes()).toString()).toBe('- [✅ abc123, a] one\n- [❌, a] two // Failed: tests failed\n- [ ] three   \n');
    expect(plain(await b.board.list())).toEqual(plain(parseTasks(await b.bytes())));
  });

  it('gives the bytes back exactly after claim and release: CRLF, a BOM, no final newline', async () => {
    const doc = '\ufeff# T\r\n\r\n* [ ] one\r\n\t+ [ ] two';
    const b = await kind.make(doc);
    const t = (await b.board.next({ by: 'a' }))!;
    const u = (await b.board.next({ by: 'a' }))!;
    await b.board.release(u.id, { by: 'a' });
    await b.board.release(t.id, { by: 'a' });
    expect(await b.bytes()).toEqual(Buffer.from(doc));
  });

  it('renews a claim by heartbeat, even past its lease, until someone takes it over', async () => {
    const doc = '- [🟡, a, 2020-01-01T00:00:00Z] old claim\n- [🟡, b, 2020-01-01T00:00:00Z] another\n';
    const b = await kind.make(doc);
    const [one, two] = await b.board.list();
    const renewed = await b.board.heartbeat(one!.id, { by: 'a' });
    expect(renewed.claimedAt! > '2020-01-01T00:00:00Z').toBe(true);
    // The other lapsed claim is taken over by the next claimer; the old holder's heartbeat is refused.
    expect(await b.board.next({ by: 'c' })).toMatchObject({ id: two!.id, by: 'c' });
    expect((await conflict(b.board.heartbeat(two!.id, { by: 'b' }))).message).toBe(`${named(two!)} is claimed by c, not b`);
  });

  it('reaps claims past their lease, leaves fresh and untimed ones unless asked, and returns them as they were', async () => {
    const doc = '- [ ] fresh\n- [🟡, ghost, 2020-01-01T00:00:00Z] stale\n- [🟡, adw1] untimed\n';
    const b = await kind.make(doc);
    await b.board.next({ by: 'live' });
    const before = await b.bytes();
    const dry = await b.board.reap({ dryRun: true });
    expect(dry.map((t) => [t.text, t.by, t.claimedAt])).toEqual([['stale', 'ghost', '2020-01-01T00:00:00Z']]);
    expect(await b.bytes()).toEqual(before);
    const reaped = await b.board.reap();
    expect(reaped.map((t) => [t.text, t.status, t.by])).toEqual([['stale', 'claimed', 'ghost']]);
    expect((await b.bytes()).toString()).toMatch(/^- \[🟡, live, [^\]]+\] fresh\n- \[ \] stale\n- \[🟡, adw1\] untimed\n$/);
    expect((await b.board.reap({ includeUntimed: true })).map((t) => t.text)).toEqual(['untimed']);
    expect(await b.board.reap()).toEqual([]);
    // An operator's ttl reopens even a fresh claim older than it.
    expect((await b.board.reap({ ttl: 0 })).map((t) => t.text)).toEqual(['fresh']);
  });

  it('adds a task where the file board puts it, in the style of the one it follows', async () => {
    const doc = '# P\n\n## Git Worktree api\n1. [ ] one\n2. [x] two\n\n## Notes\nprose\n';
    const b = await kind.make(doc);
    expect(await b.board.add('three {x}', { section: 'api' })).toMatchObject({ text: 'three {x}', status: 'open', line: 6, tags: ['x'], section: 'Git Worktree api' });
    expect(await b.board.add('brand new', { section: 'Later' })).toMatchObject({ section: 'Git Worktree Later' });
    await b.board.add('last');
    expect((await b.bytes()).toString()).toBe(
      '# P\n\n## Git Worktree api\n1. [ ] one\n2. [x] two\n3. [ ] three {x}\n\n## Notes\nprose\n\n## Git Worktree Later\n\n1. [ ] brand new\n2. [ ] last\n',
    );
    expect(plain(await b.board.list())).toEqual(plain(parseTasks(await b.bytes())));
    expect((await conflict(b.board.add('  '))).code).toBe('USAGE');
  });

  it('names a section as its heading reads back (closing #s and blanks dropped): one heading however it is typed, and next finds it', async () => {
    const b = await kind.make('# P\n');
    expect(await b.board.add('one', { section: 'Later ###' })).toMatchObject({ section: 'Later' });
    await b.board.add('two', { section: 'Later ##' });
    await b.board.add('three', { section: '  Later' });
    expect(await b.board.add('sharp', { section: 'C#' })).toMatchObject({ section: 'C#' });
    expect((await b.bytes()).toString()).toBe('# P\n\n## Later\n\n- [ ] one\n- [ ] two\n- [ ] three\n\n## C#\n\n- [ ] sharp\n');
    expect(await b.board.next({ by: 'a', section: 'Later #' })).toMatchObject({ text: 'one' });
    expect((await conflict(b.board.add('none', { section: '###' }))).code).toBe('USAGE');
  });

  it('adds many tasks at one place (past the room left between two rows) exactly as the file board does', async () => {
    const doc = '## A\n- [ ] a0\n\n## B\n- [ ] b0\n';
    const b = await kind.make(doc);
    const file = await fileKind.make(doc);
    for (let i = 1; i <= 24; i++) {
      const [x, y] = await Promise.all([b.board.add(`a${i}`, { section: 'A' }), file.board.add(`a${i}`, { section: 'A' })]);
      expect(x).toEqual(y);
    }
    expect((await b.bytes()).toString()).toBe((await file.bytes()).toString());
    expect((await b.board.list()).map((t) => t.text)).toEqual([...Array.from({ length: 25 }, (_, i) => `a${i}`), 'b0']);
  });

  it('refuses bad arguments as usage errors before writing anything', async () => {
    const b = await kind.make(BOARD);
    for (const op of [
      () => b.board.next({ by: 'bad by' }),
      () => b.board.next({ by: 'a', lease: 'soon' }),
      () => b.board.claim('', { by: 'a' }),
      () => b.board.done('PLAT-1', { by: 'a', commit: 'no spaces allowed' }),
      () => b.board.reap({ ttl: 'x' }),
    ]) {
      expect((await conflict(Promise.resolve().then(op))).code).toBe('USAGE');
    }
    expect((await b.bytes()).toString()).toBe(BOARD);
  });

  it('runs the same script to the same bytes as every other board', async () => {
    const b = await kind.make(BOARD);
    const t = (await b.board.next({ by: 'a' }))!;
    await b.board.done(t.id, { by: 'a', commit: 'c0ffee' });
    const u = (await b.board.next({ by: 'b' }))!;
    await b.board.heartbeat(u.id, { by: 'b' });
    const v = (await b.board.next({ by: 'c', tags: ['ui'] }))!;
    await b.board.fail(v.id, { by: 'c', reason: 'flaky' });
    await b.board.add('PLAT-2 more', { section: 'Frontend' });
    await b.board.next({ by: 'd' });
    expect((await b.bytes()).toString().replace(TIME, 'T')).toBe(
      [
        '# Project',
        '',
        'Some prose, and a [link] that is no task.',
        '',
        '## Git Worktree api',
        '- [✅ c0ffee, a] PLAT-1 Add the /health endpoint {backend}',
        '- [🟡, b, T] Document every route {docs}',
        '',
        '## Frontend',
        '1. [x] Set up the app',
        '2. [❌, c] Build the login page {frontend, ui} // Failed: flaky',
        '3. [⏰] Ship it',
        '4. [🟡, d, T] PLAT-2 more',
        '',
        '```',
        '- [ ] not a task: code',
        '```',
        '',
      ].join('\n'),
    );
  });
});

describeKinds('the $name board, per-claim leases and fenced writes', (kind) => {
  // These two wait for a short lease to run out, each on a board of its own: they run at once.
  it.concurrent('lapses a claim by its own lease, whoever looks', async () => {
    const b = await kind.make('- [ ] short\n- [ ] long\n');
    // Claim times are to the second, rounded down: 3s leaves the short claim two seconds at least before it lapses.
    const short = (await b.board.next({ by: 'a', lease: '3s' }))!;
    const long = (await b.board.next({ by: 'a', lease: '1h' }))!;
    expect([short.lease, long.lease]).toEqual(['3s', '1h']);
    expect(Date.parse(long.expiresAt!) - Date.parse(long.claimedAt!)).toBe(3_600_000);
    // A claimer with a short lease of its own cannot take a claim whose lease has not run out.
    expect(await b.board.next({ by: 'b', lease: '1s' })).toBeNull();
    let taken: Task | null = null;
    while ((taken = await b.board.next({ by: 'b' })) === null) await pause();
    expect(taken).toMatchObject({ id: short.id, by: 'b', lease: '30m' });
    expect(await b.board.next({ by: 'c' })).toBeNull();
    expect((await b.bytes()).toString()).toMatch(/^- \[🟡, b, [^,\]]+\] short\n- \[🟡, a, [^,\]]+, 1h\] long\n$/);
  });

  it.concurrent('applies a fenced write only to the claim it names, even for the same by', async () => {
    const b = await kind.make('- [ ] job\n');
    const first = (await b.board.next({ by: 'host', lease: '1s' }))!;
    let second: Task | null = null;
    while (second === null || second.claimedAt === first.claimedAt) {
      second = await b.board.next({ by: 'host' });
      if (second === null) await pause();
    }
    const before = await b.bytes();
    const err = await conflict(b.board.done(first.id, { by: 'host', claimedAt: first.claimedAt! }));
    expect(err.code).toBe('CONFLICT');
    expect(err.holder).toBe('host');
    expect(await b.bytes()).toEqual(before);
    const beat = await b.board.heartbeat(second.id, { by: 'host', claimedAt: second.claimedAt! });
    expect(await b.board.done(second.id, { by: 'host', claimedAt: beat.claimedAt! })).toMatchObject({ status: 'done' });
  });

  it('gives duplicate texts one id: claim takes the first claimable, holder writes reach the caller', async () => {
    const b = await kind.make('- [ ] same\n- [ ] same\n- [ ] PLAT-1 a\n- [ ] PLAT-1 b\n');
    const ids = (await b.board.list()).map((t) => t.id);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe('PLAT-1');
    const x = await b.board.claim(ids[0]!, { by: 'x' });
    const y = await b.board.claim(ids[0]!, { by: 'y' });
    expect([x.line, y.line]).toEqual([1, 2]);
    expect(await b.board.done(ids[0]!, { by: 'y' })).toMatchObject({ line: 2, status: 'done' });
    // A tracker key on several lines still reaches the caller's own task.
    const a = await b.board.claim(ids[2]!, { by: 'k' });
    expect(await b.board.release('PLAT-1', { by: 'k' })).toMatchObject({ line: a.line, status: 'open' });
  });
});
