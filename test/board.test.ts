import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const ADW = `# Board

## Git Worktree alpha
[] Write the parser {opus}
[⏰] Wire the parser into the CLI
[✅ 3ecdebb33, 17b93f48] Set up the repo

## Git Worktree beta
[🟡, cc73faf1, 2026-11-30T04:06:29Z] Draft the docs {sonnet, docs}
[❌, 0a1b2c3d] Port to Windows // Failed: no runner
`;

const at = (iso: string) => () => Date.parse(iso);


describe('board', () => {
  it('lists every status of an ADW board with sections and tags', async () => {
    const tasks = await openBoard(boardFile(ADW)).list();
    expect(tasks.map((t) => [t.status, t.line, t.section])).toEqual([
      ['open', 4, 'Git Worktree alpha'],
      ['blocked', 5, 'Git Worktree alpha'],
      ['done', 6, 'Git Worktree alpha'],
      ['claimed', 9, 'Git Worktree beta'],
      ['failed', 10, 'Git Worktree beta'],
    ]);
    expect(tasks[0]).toMatchObject({ text: 'Write the parser {opus}', tags: ['opus'] });
    expect(tasks[2]).toMatchObject({ commit: '3ecdebb33', by: '17b93f48' });
    expect(tasks[3]).toMatchObject({ by: 'cc73faf1', claimedAt: '2026-11-30T04:06:29Z', tags: ['sonnet', 'docs'] });
    expect(tasks[4]).toMatchObject({ text: 'Port to Windows', reason: 'no runner', by: '0a1b2c3d' });
  });

  it('keeps ids stable across status and position changes while the text is unchanged', async () => {
    const file = boardFile(ADW);
    const board = openBoard(file);
    const before = await board.list();
    const t = await board.next({ by: 'agent-1' });
    expect(t?.id).toBe(before[0]!.id);
    const after = await board.list();
    expect(after.map((x) => x.id)).toEqual(before.map((x) => x.id));
    const moved = openBoard(boardFile('intro\n\n- [ ] Write the parser {opus}\n'));
    expect((await moved.list())[0]!.id).toBe(before[0]!.id);
  });

  it('gives exact duplicate texts one id and uses a leading tracker key as the id', async () => {
    const tasks = await openBoard(boardFile('- [ ] same\n- [ ] same\n- [ ] PLAT-1 Add login\n')).list();
    expect(tasks[1]!.id).toBe(tasks[0]!.id);
    expect(tasks[0]!.id).toMatch(/^[0-9a-f]{12}$/);
    expect(tasks[2]!.id).toBe('PLAT-1');
  });

  it('claims the first claimable task in file order and writes who and when', async () => {
    const file = boardFile(ADW);
    const board = openBoard(file, { now: at('2026-11-30T05:00:00Z') });
    const t = await board.next({ by: 'agent-1' });
    expect(t).toMatchObject({ status: 'claimed', by: 'agent-1', claimedAt: '2026-11-30T05:00:00Z', line: 4 });
    // U+FE0F after the 🟡: the line was `[]`, and a give-back writes it so again.
    expect(read(file)).toBe(ADW.replace('[] Write the parser', '[🟡\uFE0F, agent-1, 2026-11-30T05:00:00Z] Write the parser'));
  });

  it('claims a blocked task only when every task above it in its section is done', async () => {
    const file = boardFile(ADW);
    const board = openBoard(file, { now: at('2026-11-30T04:10:00Z') });
    const first = await board.next({ by: 'a' });
    expect(first!.line).toBe(4);
    const blocked = (await board.list())[1]!;
    expect((await errorOf(board.claim(blocked.id, { by: 'b' }))).code).toBe('CONFLICT');
    // Nothing else is claimable: the blocked line waits and the beta claim is fresh.
    expect(await board.next({ by: 'b' })).toBeNull();
    await board.done(first!.id, { by: 'a', commit: 'abc1234' });
    expect(await board.next({ by: 'b' })).toMatchObject({ id: blocked.id, line: 5 });
  });

  it('takes over a lapsed claim and refuses a fresh one, naming the holder', async () => {
    const file = boardFile(ADW);
    const fresh = openBoard(file, { now: at('2026-11-30T04:10:00Z') });
    const beta = (await fresh.list())[3]!;
    const err = await errorOf(fresh.claim(beta.id, { by: 'b' }));
    expect(err).toMatchObject({ code: 'CONFLICT', holder: 'cc73faf1' });
    expect(err.message).toContain('already claimed by cc73faf1');
    const later = openBoard(file, { now: at('2026-11-30T04:36:29Z') });
    expect(await later.claim(beta.id, { by: 'b' })).toMatchObject({ by: 'b', claimedAt: '2026-11-30T04:36:29Z' });
  });

  it('lets the holder heartbeat a lapsed claim until someone takes it over, then refuses it naming the new holder', async () => {
    const file = boardFile('- [🟡, slow, 2026-11-30T03:00:00Z] long job\n');
    let now = Date.parse('2026-11-30T05:00:00Z');
    const board = openBoard(file, { now: () => now });
    const [job] = await board.list();
    expect(await board.heartbeat(job!.id, { by: 'slow' })).toMatchObject({ claimedAt: '2026-11-30T05:00:00Z' });
    now += 31 * 60_000;
    expect(await board.claim(job!.id, { by: 'fast' })).toMatchObject({ by: 'fast' });
    expect(await errorOf(board.heartbeat(job!.id, { by: 'slow' }))).toMatchObject({ code: 'CONFLICT', holder: 'fast' });
  });

  it('adds to a CRLF board without a final newline, keeping its line endings', async () => {
    const file = boardFile('## A\r\n- [ ] one');
    await openBoard(file).add('two');
    expect(read(file)).toBe('## A\r\n- [ ] one\r\n- [ ] two\r\n');
  });

  it("gives a claim made with a lease of 1s a lease that runs out a second later, and takes nobody else's claim with it", async () => {
    const file = boardFile('[🟡, x, 2026-11-30T04:06:29Z] a\n[🟡, y] b\n[ ] c\n');
    let now = Date.parse('2026-11-30T04:06:30Z');
    const board = openBoard(file, { now: () => now });
    // x's claim has its own 30m lease: a lease of 1s asked by z does not make it lapse.
    expect(await board.next({ by: 'z', lease: '1s' })).toMatchObject({ text: 'c', by: 'z', lease: '1s', expiresAt: '2026-11-30T04:06:31Z' });
    expect(read(file)).toContain('[🟡, z, 2026-11-30T04:06:30Z, 1s] c');
    now += 1000;
    // z's claim is lapsed by its own lease, so the next claimer takes it; the untimed one never lapses.
    expect(await board.next({ by: 'q' })).toMatchObject({ text: 'c', by: 'q', lease: '30m' });
    expect(await board.next({ by: 'r', lease: '1s' })).toBeNull();
  });

  it('gives a same-name takeover at the first instant a 1s claim lapses a later claim time, so the old claim\'s fence matches nothing', async () => {
    const file = boardFile('[ ] c\n');
    let now = Date.parse('2026-11-30T04:06:30.999Z');
    const board = openBoard(file, { now: () => now });
    const old = (await board.next({ by: 'z', lease: '1s' }))!;
    now = Date.parse(old.expiresAt!);
    const taken = (await board.next({ by: 'z', lease: '1s' }))!;
    expect(taken.claimedAt).not.toBe(old.claimedAt);
    expect(await errorOf(board.done(old.id, { by: 'z', claimedAt: old.claimedAt! }))).toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses a lease under a second, whoever asks: the board, next, claim and the options of a board', async () => {
    const file = boardFile('[ ] c\n');
    const board = openBoard(file);
    for (const lease of ['0s', '999ms', 500, 0]) {
      expect((await errorOf(board.next({ by: 'z', lease })))).toMatchObject({ code: 'USAGE', message: expect.stringContaining('at least 1s') });
      expect((await errorOf(board.claim((await board.list())[0]!.id, { by: 'z', lease })))).toMatchObject({ code: 'USAGE' });
      expect(() => openBoard(file, { lease })).toThrow(/lease must be at least 1s/);
    }
    expect(read(file)).toBe('[ ] c\n');
  });

  it('refuses heartbeat, done, fail and release from a non-holder and leaves the file untouched', async () => {
    const file = boardFile(ADW);
    const board = openBoard(file);
    const beta = (await board.list())[3]!;
    const before = bytesOf(file);
    for (const op of [
      board.heartbeat(beta.id, { by: 'intruder' }),
      board.done(beta.id, { by: 'intruder' }),
      board.fail(beta.id, { by: 'intruder', reason: 'x' }),
      board.release(beta.id, { by: 'intruder' }),
    ]) {
      expect(await errorOf(op)).toMatchObject({ code: 'CONFLICT', holder: 'cc73faf1' });
    }
    const open = (await board.list())[0]!;
    expect((await errorOf(board.release(open.id, { by: 'intruder' }))).code).toBe('CONFLICT');
    expect((await errorOf(board.done('nope', { by: 'intruder' }))).code).toBe('NOT_FOUND');
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('runs a claim through heartbeat to done, fail and release', async () => {
    const file = boardFile('- [ ] one\n- [ ] two\n- [ ] three\n');
    let now = Date.parse('2026-11-30T05:00:00Z');
    const board = openBoard(file, { now: () => now });
    const one = (await board.next({ by: 'w1' }))!;
    now += 60_000;
    expect(await board.heartbeat(one.id, { by: 'w1' })).toMatchObject({ claimedAt: '2026-11-30T05:01:00Z' });
    await board.done(one.id, { by: 'w1', commit: 'deadbeef' });
    const two = (await board.next({ by: 'w2' }))!;
    await board.fail(two.id, { by: 'w2', reason: 'tests\nbroke\r\n  badly' });
    const three = (await board.next({ by: 'w3' }))!;
    await board.release(three.id, { by: 'w3' });
    expect(read(file)).toBe('- [✅ deadbeef, w1] one\n- [❌, w2] two // Failed: tests broke badly\n- [ ] three\n');
    const failed = (await board.list())[1]!;
    expect(failed).toMatchObject({ id: two.id, text: 'two', reason: 'tests broke badly' });
  });

  it('gives a [ ] line back byte for byte after claim and release, with CRLF, a BOM and no final newline', async () => {
    const original = Buffer.from('\uFEFF# T\r\n\r\n  * [ ] ünïcödé task 🚀 {x}  \r\n* [ ] last', 'utf8');
    const file = boardFile(original);
    const board = openBoard(file);
    for (const t of await board.list()) {
      await board.claim(t.id, { by: 'w' });
      await board.release(t.id, { by: 'w' });
    }
    expect(bytesOf(file).equals(original)).toBe(true);
  });

  it('filters next by every tag and by section or worktree name', async () => {
    const board = openBoard(boardFile('## Git Worktree alpha\n[] a {x}\n[] b {x, y}\n## Other\n[] c {y}\n'));
    expect(await board.next({ by: 'w', tags: ['x', 'y'] })).toMatchObject({ text: 'b {x, y}' });
    expect(await board.next({ by: 'w', section: 'Other' })).toMatchObject({ text: 'c {y}' });
    expect(await board.next({ by: 'w', section: 'alpha' })).toMatchObject({ text: 'a {x}' });
    expect(await board.next({ by: 'w', section: 'alpha' })).toBeNull();
  });

  it('reaps only the claim older than the TTL: not the open task, not the fresh claim', async () => {
    const file = boardFile('- [ ] open\n- [🟡, fresh, 2026-11-30T04:59:00Z] recent\n- [🟡, stale, 2026-11-30T03:00:00Z] old\n- [🟡, adw1] untimed\n');
    const board = openBoard(file, { now: at('2026-11-30T05:00:00Z') });
    expect((await board.reap({ ttl: '30m', dryRun: true })).map((t) => t.by)).toEqual(['stale']);
    expect(read(file)).toContain('[🟡, stale,');
    const reaped = await board.reap({ ttl: '30m' });
    expect(reaped.map((t) => t.by)).toEqual(['stale']);
    expect(read(file)).toBe('- [ ] open\n- [🟡, fresh, 2026-11-30T04:59:00Z] recent\n- [ ] old\n- [🟡, adw1] untimed\n');
    expect(await board.reap({ ttl: '30m' })).toEqual([]);
    expect((await board.reap({ ttl: '30m', includeUntimed: true })).map((t) => t.by)).toEqual(['adw1']);
  });

  it('appends a task in the style of its section, creating the section when missing', async () => {
    const file = boardFile('## Git Worktree alpha\n[] a\n\n## Other\n1. [ ] x\n2. [ ] y\n');
    const board = openBoard(file);
    await board.add('b', { section: 'alpha' });
    await board.add('z', { section: 'Other' });
    const added = await board.add('new thing', { section: 'gamma' });
    expect(read(file)).toBe('## Git Worktree alpha\n[] a\n[] b\n\n## Other\n1. [ ] x\n2. [ ] y\n3. [ ] z\n\n## Git Worktree gamma\n\n1. [ ] new thing\n');
    expect(added).toMatchObject({ status: 'open', section: 'Git Worktree gamma', text: 'new thing' });
  });

  it('rejects bad options with a usage error that names the field', async () => {
    const file = boardFile(ADW);
    const board = openBoard(file);
    expect(await errorOf(board.next({ by: 'bad id!' }))).toMatchObject({ code: 'USAGE' });
    expect((await errorOf(board.next({ by: 'x'.repeat(65) }))).code).toBe('USAGE');
    expect((await errorOf(board.next({ by: 'ok', lease: '5 minutes' }))).message).toContain('lease');
    expect(() => openBoard(file, { lease: 'soon' })).toThrow(/lease/);
    expect(() => openBoard(file, { write: 'yolo' as 'auto' })).toThrow(/write/);
    expect(bytesOf(file).equals(Buffer.from(ADW))).toBe(true);
  });

  it('fails with IO on a missing file', async () => {
    const err = await errorOf(openBoard('/nonexistent/tasks.md').list());
    expect(err.code).toBe('IO');
    expect(err.message).toContain('no such file');
  });
});
