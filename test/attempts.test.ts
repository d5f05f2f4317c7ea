import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openBoard } from '../src/index.js';
import { renderTries } from '../src/format/attempts.js';
import { listTasks } from '../src/board/walk.js';
import { bytes, toByteString } from '../src/format/bytes.js';
import { applyEdits, checkReading } from '../src/board/check-reading.js';
import { claimById, claimNext } from '../src/file/claim.js';
import { release, retry } from '../src/file/finish.js';
import { resultOf, type Plan } from '../src/board/plan.js';
import { summarize } from '../src/watch/summary.js';
import { retryDelayMs } from '../src/runner/retry.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, read } from './helpers/tmp.js';

// The attempts field on a file board: counted by claims, kept by what is not a person's decision, never part of the id.

const T0 = Date.parse('2026-12-02T07:00:00Z');
const clock = (start = T0) => {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms), add: (ms: number) => (now += ms) };
};
const LEASE = 30 * 60_000;

describe('the attempts field', () => {
  it('counts a first claim without writing anything: claim + release gives the line back byte for byte', async () => {
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const board = openBoard(file, { now: clock().now });
    const t = await board.next({ by: 'a1' });
    expect(read(file)).toBe('- [🟡, a1, 2026-12-02T07:00:00Z] one\n- [ ] two\n');
    expect(t?.attempts).toBeUndefined();
    await board.release(t!.id, { by: 'a1' });
    expect(read(file)).toBe('- [ ] one\n- [ ] two\n');
  });

  it('counts a reaped claim, the next claim and a takeover once a budget asks, and leaves the id alone', async () => {
    const c = clock();
    const file = boardFile('- [ ] one {x}\n');
    const board = openBoard(file, { now: c.now });
    const first = await board.next({ by: 'a1' });
    c.add(LEASE);
    await board.reap({ maxAttempts: 5 });
    expect(read(file)).toBe('- [ ] one {x} // Attempts: 1\n');
    const [open] = await board.list();
    expect(open).toMatchObject({ id: first!.id, text: 'one {x}', tags: ['x'], attempts: 1 });
    // Counted on its line from now on, by every claimer.
    await board.next({ by: 'a2' });
    expect(read(file)).toBe('- [🟡, a2, 2026-12-02T07:30:00Z] one {x} // Attempts: 2\n');
    c.add(LEASE);
    const taken = await board.claim(first!.id, { by: 'a3' });
    expect(taken).toMatchObject({ id: first!.id, by: 'a3', attempts: 3 });
    expect(read(file)).toBe('- [🟡, a3, 2026-12-02T08:00:00Z] one {x} // Attempts: 3\n');
    // A heartbeat by its holder is no new attempt.
    c.add(1000);
    await board.heartbeat(first!.id, { by: 'a3' });
    expect((await board.list())[0]!.attempts).toBe(3);
    c.add(LEASE);
    await board.reap();
    expect(read(file)).toBe('- [ ] one {x} // Attempts: 3\n');
  });

  it('writes nothing on a board no budget or retry ever touched: a reap and a takeover read as they always have', async () => {
    const c = clock();
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const board = openBoard(file, { now: c.now });
    await board.next({ by: 'a1' });
    const two = await board.next({ by: 'a1' });
    c.add(LEASE);
    await board.reap();
    await board.claim(two!.id, { by: 'a2' });
    expect(read(file)).toBe('- [ ] one\n- [🟡, a2, 2026-12-02T07:30:00Z] two\n');
  });

  it('counts a takeover by a claimer with a budget', async () => {
    const file = boardFile('- [🟡, a1, 2026-12-02T07:00:00Z] one\n');
    const board = openBoard(file, { now: () => T0 + LEASE });
    const [t] = await board.list();
    expect(await board.claim(t!.id, { by: 'a2', maxAttempts: 3 })).toMatchObject({ attempts: 2 });
    expect(read(file)).toBe('- [🟡, a2, 2026-12-02T07:30:00Z] one // Attempts: 2\n');
  });

  it('keeps the count through done and fail, and puts the reason after it', async () => {
    const c = clock();
    const file = boardFile('- [ ] one // Attempts: 2\n- [ ] two // Attempts: 1\n');
    const board = openBoard(file, { now: c.now });
    const one = await board.next({ by: 'a1' });
    const two = await board.next({ by: 'a1' });
    await board.fail(one!.id, { by: 'a1', reason: 'exit 1' });
    await board.done(two!.id, { by: 'a1', commit: 'abc123' });
    expect(read(file)).toBe('- [❌, a1] one // Attempts: 3 // Failed: exit 1\n- [✅ abc123, a1] two // Attempts: 2\n');
    expect((await board.list()).map((t) => [t.text, t.attempts, t.reason])).toEqual([['one', 3, 'exit 1'], ['two', 2, undefined]]);
  });

  it('starts the count over on reopen, a person’s decision', async () => {
    const file = boardFile('- [❌, a1] one // Attempts: 3 // Failed: exit 1\n- [✅, a1] two // Attempts: 2\n');
    const board = openBoard(file);
    const [one, two] = await board.list();
    await board.reopen(one!.id);
    await board.reopen(two!.id);
    expect(read(file)).toBe('- [ ] one\n- [ ] two\n');
  });

  it('gives a released attempt back, keeping the earlier ones', async () => {
    const file = boardFile('- [ ] one // Attempts: 2\n');
    const board = openBoard(file, { now: clock().now });
    const t = await board.next({ by: 'a1' });
    expect(read(file)).toBe('- [🟡, a1, 2026-12-02T07:00:00Z] one // Attempts: 3\n');
    await board.release(t!.id, { by: 'a1' });
    expect(read(file)).toBe('- [ ] one // Attempts: 2\n');
  });

  it('reads a field only at the end of the text, so a text that mentions one keeps it', async () => {
    const board = openBoard(boardFile('- [ ] // Attempts: 2\n- [ ] count // Attempts: 2 of them\n- [ ] zero // Attempts: 0\n- [ ] a // Attempts: 2, not before soon\n'));
    expect((await board.list()).map((t) => [t.text, t.attempts])).toEqual([
      ['// Attempts: 2', undefined],
      ['count // Attempts: 2 of them', undefined],
      ['zero // Attempts: 0', undefined],
      ['a // Attempts: 2, not before soon', undefined],
    ]);
  });

  it('never changes a task’s id, text or tags, whatever the field says (property)', () => {
    const text = fc.string({ minLength: 1, maxLength: 40 }).map((x) => x.replace(/[\r\n]/g, ' ').trim()).filter((x) => x !== '' && !x.startsWith('['));
    const time = fc.option(fc.integer({ min: 0, max: 4e9 }).map((s) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')), { nil: undefined });
    fc.assert(
      fc.property(text, fc.constantFrom('open', 'claimed', 'failed') as fc.Arbitrary<'open' | 'claimed' | 'failed'>, fc.integer({ min: 1, max: 999_999 }), time, (t, status, n, notBefore) => {
        const marker = { open: '[ ]', claimed: '[🟡, a1, 2026-12-02T07:00:00Z]', failed: '[❌, a1]' }[status];
        const reason = status === 'failed' ? ' // Failed: exit 1' : '';
        const plain = listTasks(bytes(`- ${marker} ${t}${reason}\n`))[0];
        const field = renderTries(status, n, notBefore);
        const withField = listTasks(bytes(`- ${marker} ${t}${field}${reason}\n`))[0];
        expect(withField).toMatchObject({ id: plain!.id, text: plain!.text, tags: plain!.tags });
        if (field !== '') expect([withField!.attempts, withField!.notBefore]).toEqual([Math.max(n, 1), notBefore]);
      }),
    );
  });
});

describe('not before: a retry’s wait', () => {
  it('is honoured by next and by claim, to the second, and ends with the claim that takes it', async () => {
    const c = clock();
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const board = openBoard(file, { now: c.now });
    const t = await board.next({ by: 'a1' });
    await board.retry(t!.id, { by: 'a1', delay: '90s' });
    expect(read(file)).toBe('- [ ] one // Attempts: 1, not before 2026-12-02T07:01:30Z\n- [ ] two\n');
    c.set(Date.parse('2026-12-02T07:01:29.999Z'));
    expect((await board.next({ by: 'a2' }))?.text).toBe('two');
    const err = await errorOf(board.claim(t!.id, { by: 'a2' }));
    expect(err).toMatchObject({ code: 'CONFLICT' });
    expect(err.message).toMatch(/waits for a retry after 1 attempt: not before 2026-12-02T07:01:30Z \(in 1s\)/);
    c.set(Date.parse('2026-12-02T07:01:30Z'));
    const again = await board.claim(t!.id, { by: 'a2' });
    expect(again).toMatchObject({ id: t!.id, attempts: 2 });
    expect(again.notBefore).toBeUndefined();
    expect(read(file)).toBe('- [🟡, a2, 2026-12-02T07:01:30Z] one // Attempts: 2\n- [🟡, a2, 2026-12-02T07:01:29Z] two\n');
  });

  it('rounds the wait up to the second it writes, so no claim comes early', async () => {
    const c = clock(T0 + 400);
    const file = boardFile('- [ ] one\n');
    const board = openBoard(file, { now: c.now });
    const t = await board.next({ by: 'a1' });
    await board.retry(t!.id, { by: 'a1', delay: 1000 });
    expect(read(file)).toContain('not before 2026-12-02T07:00:02Z');
  });

  it('is a holder’s write: a retry by someone else is refused and the board left as it was', async () => {
    const file = boardFile('- [🟡, a1, 2026-12-02T07:00:00Z] one\n');
    const board = openBoard(file, { now: clock().now });
    const before = read(file);
    const [t] = await board.list();
    expect(await errorOf(board.retry(t!.id, { by: 'a2', delay: '1m' }))).toMatchObject({ code: 'CONFLICT', holder: 'a1' });
    expect(await errorOf(board.retry(t!.id, { by: 'a1', delay: 'soon' }))).toMatchObject({ code: 'USAGE' });
    expect(read(file)).toBe(before);
  });
});

describe('a poison task parked at its budget', () => {
  it('by a takeover that passes the budget: claim parks it and says so as a conflict; next parks it and takes the next task', async () => {
    const lapsed = '- [🟡, agent-7, 2026-12-02T07:00:00Z] poison // Attempts: 3\n- [ ] fine\n';
    const file = boardFile(lapsed);
    const board = openBoard(file, { now: () => T0 + LEASE });
    const [poison] = await board.list();
    const err = await errorOf(board.claim(poison!.id, { by: 'a2', maxAttempts: 3 }));
    expect(err).toMatchObject({ code: 'CONFLICT' });
    expect(err.message).toMatch(/was not taken over but parked: abandoned after 3 attempts; last held by agent-7$/);
    const parked = '- [❌] poison // Attempts: 3 // Failed: abandoned after 3 attempts; last held by agent-7\n';
    expect(read(file)).toBe(`${parked}- [ ] fine\n`);
    const other = boardFile(lapsed);
    const b2 = openBoard(other, { now: () => T0 + LEASE });
    expect(await b2.next({ by: 'a2', maxAttempts: 3 })).toMatchObject({ text: 'fine' });
    expect(read(other)).toBe(`${parked}- [🟡, a2, 2026-12-02T07:30:00Z] fine\n`);
    // Under the budget, the same claimer takes it over.
    const third = boardFile(lapsed);
    expect(await openBoard(third, { now: () => T0 + LEASE }).next({ by: 'a2', maxAttempts: 4 })).toMatchObject({ text: 'poison', attempts: 4 });
  });

  it('parks a lapsed claim at its budget, reopens one under it, and leaves live claims alone', async () => {
    const c = clock(Date.parse('2026-12-02T08:00:00Z'));
    const file = boardFile([
      '- [🟡, agent-7, 2026-12-02T07:00:00Z] poison // Attempts: 3',
      '- [🟡, agent-8, 2026-12-02T07:00:00Z] flaky // Attempts: 2',
      '- [🟡, agent-9, 2026-12-02T07:59:00Z] live // Attempts: 5',
      '',
    ].join('\n'));
    const board = openBoard(file, { now: c.now });
    const reaped = await board.reap({ maxAttempts: 3 });
    expect(reaped.map((t) => t.text)).toEqual(['poison', 'flaky']);
    expect(read(file)).toBe([
      '- [❌] poison // Attempts: 3 // Failed: abandoned after 3 attempts; last held by agent-7',
      '- [ ] flaky // Attempts: 2',
      '- [🟡, agent-9, 2026-12-02T07:59:00Z] live // Attempts: 5',
      '',
    ].join('\n'));
    expect((await board.list())[0]).toMatchObject({ status: 'failed', reason: 'abandoned after 3 attempts; last held by agent-7', attempts: 3 });
  });

  it('counts a first claim, which its line does not spell out, against the budget', async () => {
    const file = boardFile('- [🟡, agent-7, 2026-12-02T07:00:00Z] once\n');
    const board = openBoard(file, { now: () => Date.parse('2026-12-02T08:00:00Z') });
    await board.reap({ maxAttempts: 1 });
    expect(read(file)).toBe('- [❌] once // Failed: abandoned after 1 attempt; last held by agent-7\n');
  });

  it('refuses a budget that is not a whole number from 1, writing nothing', async () => {
    const file = boardFile('- [🟡, agent-7, 2026-12-02T07:00:00Z] once\n');
    const board = openBoard(file, { now: () => Date.parse('2026-12-02T08:00:00Z') });
    for (const bad of [0, 1.5, -1, '3' as unknown as number]) expect(await errorOf(board.reap({ maxAttempts: bad }))).toMatchObject({ code: 'USAGE' });
    expect(read(file)).toBe('- [🟡, agent-7, 2026-12-02T07:00:00Z] once\n');
  });
});

describe('the attempts field on real boards', () => {
  const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
  const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.md')).sort() : [];
  const by = { leaseMs: LEASE, maxAttempts: 3 };
  it.skipIf(files.length === 0)('keeps every id, text and line through a budgeted claim, a retry, its next claim and a release', () => {
    for (const file of files) {
      let src = toByteString(readFileSync(path.join(CORPUS, file)));
      const step = <T>(plan: Plan<T>): T => {
        checkReading(src, plan);
        src = applyEdits(src, [...plan.edits].sort((a, b) => a.start - b.start));
        return resultOf(plan);
      };
      const before = listTasks(src).map((t) => [t.id, t.text, t.line]);
      const t = step(claimNext(src, {}, { by: 'a1', now: T0, ...by }));
      if (t === null) continue;
      step(retry(src, t.id, { by: 'a1' }, '2026-12-02T07:05:00Z'));
      expect(listTasks(src).map((x) => [x.id, x.text, x.line]), file).toEqual(before);
      expect(listTasks(src).find((x) => x.line === t.line), file).toMatchObject({ status: 'open', attempts: 1, notBefore: '2026-12-02T07:05:00Z' });
      // Exact duplicates share an id: a claim by it may take another copy, so only a task of its own is claimed again.
      if (before.filter(([id]) => id === t.id).length > 1) continue;
      expect(() => claimById(src, t.id, { by: 'a2', now: T0 + 60_000, ...by }), file).toThrow(/waits for a retry/);
      expect(step(claimById(src, t.id, { by: 'a2', now: T0 + 5 * 60_000, ...by })), file).toMatchObject({ id: t.id, attempts: 2 });
      step(release(src, t.id, { by: 'a2' }));
      expect(listTasks(src).map((x) => [x.id, x.text, x.line]), file).toEqual(before);
      expect(listTasks(src).find((x) => x.line === t.line), file).toMatchObject({ status: 'open', attempts: 1 });
    }
  });
});

describe('a waiting retry in the summary status and watch show', () => {
  it('is blocked by its time until it comes', () => {
    const tasks = listTasks(bytes('- [ ] waits // Attempts: 1, not before 2026-12-02T07:05:00Z\n'));
    expect(summarize(tasks, T0).blocked).toEqual([{ id: tasks[0]!.id, text: 'waits', reason: 'retry', notBefore: '2026-12-02T07:05:00Z' }]);
    expect(summarize(tasks, Date.parse('2026-12-02T07:05:00Z')).blocked).toEqual([]);
  });
});

describe('the retry delay', () => {
  it('doubles with each attempt, jitter only adds up to a fifth, and it stops growing at a day', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(1000, n, () => 0))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3].map((n) => retryDelayMs(1000, n, () => 0.999999))).toEqual([1200, 2400, 4800]);
    expect(retryDelayMs(60_000, 60, () => 0)).toBe(86_400_000);
    fc.assert(fc.property(fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (base, n, r) => {
      const doubled = Math.min(86_400_000, base * 2 ** (n - 1));
      const ms = retryDelayMs(base, n, () => r);
      return ms >= doubled && ms <= Math.round(doubled * 1.2);
    }));
  });
});
