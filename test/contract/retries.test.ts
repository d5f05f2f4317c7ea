import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';
import { fixture, lines, startTogether } from '../helpers/procs.js';
import { runner, until } from '../helpers/runner.js';
import { boardFile } from '../helpers/tmp.js';
import { describeKinds } from './kinds.js';

// Attempts, retries and parked tasks: one rule on every board, read back as the same line.

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

describeKinds('attempts and retries on the $name board', (kind) => {
  it('is the CLI command retry: one line saying when, exit 0; a usage error without --delay, the board untouched', async () => {
    const { location, board, bytes } = await kind.make('- [ ] PLAT-1 flaky\n');
    await board.claim('PLAT-1', { by: 'r1' });
    const before = await bytes();
    const bare = mdclaim(['retry', 'PLAT-1', '--by', 'r1', '--file', location]);
    expect([bare.status, bare.stderr.trim()]).toEqual([2, 'error[USAGE]: retry needs --delay D: how long the task waits before anyone may claim it again']);
    expect(await bytes()).toEqual(before);
    const r = mdclaim(['retry', 'PLAT-1', '--by', 'r1', '--delay', '10m', '--file', location]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^gave back PLAT-1 "flaky" by r1 for a retry after 1 attempt: not before ${TIME}\n$`));
    expect((await bytes()).toString()).toMatch(new RegExp(`^- \\[ \\] PLAT-1 flaky // Attempts: 1, not before ${TIME}\n$`));
  });

  it('gives a released attempt back, so a claim and release leave the line as it was', async () => {
    const doc = '- [ ] once\n- [ ] twice // Attempts: 2\n';
    const { board, bytes } = await kind.make(doc);
    for (const t of await board.list()) {
      const c = await board.claim(t.id, { by: 'r1' });
      await board.release(t.id, { by: 'r1', claimedAt: c.claimedAt! });
    }
    expect((await bytes()).toString()).toBe(doc);
  });

  // The tests that wait on the clock (a retry's delay, leases of a second, a runner's backoff) run at once: each
  // has a board of its own.
  it.concurrent('holds a retry back from every claimer until its time, to the second, then counts the claim that takes it', async () => {
    const { board, bytes } = await kind.make('# Work\n\n- [ ] flaky\n- [ ] other\n');
    const t = (await board.next({ by: 'r1' }))!;
    const back = await board.retry(t.id, { by: 'r1', claimedAt: t.claimedAt!, delay: '3s' });
    expect(back).toMatchObject({ id: t.id, status: 'open', attempts: 1, notBefore: expect.stringMatching(new RegExp(`^${TIME}$`)) });
    const notBefore = Date.parse(back.notBefore!);
    expect((await bytes()).toString()).toBe(`# Work\n\n- [ ] flaky // Attempts: 1, not before ${back.notBefore}\n- [ ] other\n`);
    // Another claimer passes over it, and a claim by id says when.
    expect(await board.next({ by: 'r2' })).toMatchObject({ text: 'other' });
    const refused = await errorOf(board.claim(t.id, { by: 'r2' }));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.message).toContain(`waits for a retry after 1 attempt: not before ${back.notBefore}`);
    expect((await board.list())[0]).toMatchObject({ status: 'open', attempts: 1, notBefore: back.notBefore });
    // Poll until it is taken: every refusal came before its time, and the claim that won at or after it.
    const taken = await until('the retry is due', async () => {
      const asked = Date.now();
      try {
        return await board.claim(t.id, { by: 'r2' });
      } catch (err) {
        expect((err as { code?: string }).code).toBe('CONFLICT');
        expect(asked).toBeLessThan(notBefore + 1000);
        return null;
      }
    }, 100);
    expect(Date.now()).toBeGreaterThanOrEqual(notBefore);
    expect(taken).toMatchObject({ id: t.id, by: 'r2', attempts: 2 });
    expect(taken.notBefore).toBeUndefined();
    expect((await bytes()).toString()).toMatch(new RegExp(`^# Work\\n\\n- \\[🟡, r2, ${TIME}\\] flaky // Attempts: 2\\n- \\[🟡, r2, ${TIME}\\] other\\n$`));
    // Done keeps the count; reopen, a person's decision, starts it over.
    await board.done(t.id, { by: 'r2' });
    expect((await bytes()).toString()).toContain('- [✅, r2] flaky // Attempts: 2\n');
    await board.reopen(t.id);
    expect((await bytes()).toString()).toMatch(/^# Work\n\n- \[ \] flaky\n/);
    if (kind.name === 'pg') {
      expect((await board.history(t.id)).map((e) => [e.event, e.via, e.by ?? null])).toEqual([
        ['imported', 'import', null], ['claimed', 'next', 'r1'], ['retried', 'retry', 'r1'], ['claimed', 'claim', 'r2'], ['done', 'done', 'r2'], ['released', 'reopen', null],
      ]);
    }
  });

  it.concurrent('counts lapsed claims under a budget and parks the task at it, with a reason naming the last holder', async () => {
    const { board, bytes } = await kind.make('- [ ] poison\n- [ ] fine\n');
    const [poison] = await board.list();
    for (let attempt = 1; attempt <= 2; attempt++) {
      await board.claim(poison!.id, { by: `agent-${attempt}`, lease: '1s', maxAttempts: 3 });
      await until('the claim lapses and is reaped', async () => (await board.reap({ maxAttempts: 3 })).length === 1, 100);
      expect((await board.list())[0]).toMatchObject({ status: 'open', attempts: attempt });
    }
    await board.claim(poison!.id, { by: 'agent-7', lease: '1s' });
    expect((await board.list())[0]).toMatchObject({ status: 'claimed', attempts: 3 });
    await until('the third claim lapses', async () => (await board.list())[0]!.expiresAt! <= new Date().toISOString().slice(0, 19) + 'Z', 100);
    await until('the claim is parked', async () => (await board.reap({ maxAttempts: 3 })).length === 1, 100);
    const [parked] = await board.list();
    expect(parked).toMatchObject({ id: poison!.id, status: 'failed', attempts: 3, reason: 'abandoned after 3 attempts; last held by agent-7' });
    expect(parked!.by).toBeUndefined();
    expect((await bytes()).toString()).toBe('- [❌] poison // Attempts: 3 // Failed: abandoned after 3 attempts; last held by agent-7\n- [ ] fine\n');
    expect(await board.next({ by: 'x', maxAttempts: 3 })).toMatchObject({ text: 'fine' });
    if (kind.name === 'pg') {
      expect((await board.history(poison!.id)).at(-1)).toMatchObject({ event: 'parked', via: 'reap', from: 'agent-7', reason: 'abandoned after 3 attempts; last held by agent-7' });
    }
  });

  it.concurrent('parks instead of taking over when the claimer passes the budget: next goes on, claim says so', async () => {
    const { board, bytes } = await kind.make('- [ ] poison // Attempts: 2\n- [ ] fine\n');
    const [poison] = await board.list();
    await board.claim(poison!.id, { by: 'agent-7', lease: '1s' });
    await until('the claim lapses', async () => (await board.reap({ dryRun: true })).length === 1, 100);
    const refused = await errorOf(board.claim(poison!.id, { by: 'b', maxAttempts: 3 }));
    expect(refused).toMatchObject({ code: 'CONFLICT' });
    expect(refused.message).toMatch(/was not taken over but parked: abandoned after 3 attempts; last held by agent-7$/);
    expect((await bytes()).toString()).toBe('- [❌] poison // Attempts: 3 // Failed: abandoned after 3 attempts; last held by agent-7\n- [ ] fine\n');
  });

  it.concurrent("spaces a runner's retries by the growing delay, then fails the task saying how many attempts it had", async () => {
    const { location, bytes } = await kind.make('# Work\n\n- [ ] flaky\n');
    const events = join(dirname(boardFile('')), 'events.jsonl');
    const run = runner(location, ['--until-settled', '--retries', '2', '--retry-delay', '1s', '--interval', '100ms', '--by', 'r1', '--events', events, '--', 'sh', '-c', 'echo nope >&2; exit 3']);
    const end = await run.done;
    // Settled, with its one task failed for good: a scheduler must not read success.
    expect(end.code).toBe(1);
    const seen = readFileSync(events, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; at: string; notBefore?: string; attempts?: number; reason?: string });
    const claims = seen.filter((e) => e.event === 'claimed').map((e) => Date.parse(e.at));
    const retries = seen.filter((e) => e.event === 'retrying');
    expect(claims).toHaveLength(3);
    expect(retries.map((e) => [e.attempts, e.reason])).toEqual([[1, 'exit 3: nope'], [2, 'exit 3: nope']]);
    retries.forEach((r, i) => {
      const failedAt = Date.parse(r.at);
      const due = Date.parse(r.notBefore!);
      // D, then 2D (the written time is rounded up to the second, and jitter only adds)...
      expect(due - failedAt).toBeGreaterThanOrEqual(1000 * 2 ** i - 1000);
      expect(due - failedAt).toBeLessThanOrEqual(1000 * 2 ** i * 1.2 + 1000);
      // ...and no claim came before its time.
      expect(claims[i + 1]!).toBeGreaterThanOrEqual(due);
    });
    expect(seen.filter((e) => e.event === 'failed').map((e) => e.reason)).toEqual(['exit 3: nope (after 3 attempts)']);
    expect((await bytes()).toString()).toBe('# Work\n\n- [❌, r1] flaky // Attempts: 3 // Failed: exit 3: nope (after 3 attempts)\n');
  });

  it('stops a retrying runner at a command that cannot start, every task open and uncounted', async () => {
    // The runner takes `one` with its budget (so counted, as attempt 2); the give-back hands that attempt back.
    const doc = '- [ ] one // Attempts: 1\n- [ ] two\n';
    const { location, bytes } = await kind.make(doc);
    const end = await runner(location, ['--loop', '--retries', '3', '--by', 'r1', '--', 'sh', '-c', 'claud -p x']).done;
    expect(end.code).toBe(1);
    expect(end.stderr).toMatch(/^error\[COMMAND\]: command not found: /m);
    expect((await bytes()).toString()).toBe(doc);
  });

  it('shows attempts and a waiting retry in list, and refuses a bad budget as a usage error', async () => {
    const { location, board } = await kind.make('- [ ] waits // Attempts: 2, not before 2999-01-01T00:00:00Z\n- [ ] fresh\n');
    const json = JSON.parse(mdclaim(['list', '--json', '--file', location]).stdout) as { tasks: { text: string; attempts?: number; notBefore?: string; retryInMs?: number }[] };
    expect(json.tasks.map((t) => [t.text, t.attempts ?? null, t.notBefore ?? null])).toEqual([['waits', 2, '2999-01-01T00:00:00Z'], ['fresh', null, null]]);
    expect(json.tasks[0]!.retryInMs).toBeGreaterThan(0);
    expect(mdclaim(['list', '--file', location]).stdout).toMatch(/open, retry in \d+d\d\dh \(2 attempts\)\s+waits/);
    expect(await board.next({ by: 'x' })).toMatchObject({ text: 'fresh' });
    // A claim the line does not spell out is still one attempt.
    expect((JSON.parse(mdclaim(['list', '--json', '--file', location]).stdout) as { tasks: { attempts?: number }[] }).tasks[1]!.attempts).toBe(1);
    const bad = mdclaim(['reap', '--max-attempts', '0', '--file', location]);
    expect([bad.status, bad.stderr.trim()]).toEqual([2, 'error[USAGE]: --max-attempts must be a whole number of at least 1, got "0"']);
  });
});

/** Each attempt of a budget counted by exactly one claim: 1, 2 … max, in any order, none twice, none missing. */
function countedOnce(attempts: readonly number[], max: number): void {
  expect([...attempts].sort((a, b) => a - b)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
}

describe('the attempts check', () => {
  it('sees a double count or a lost one', () => {
    expect(() => countedOnce([1, 2, 2], 3)).toThrow();
    expect(() => countedOnce([1, 3], 3)).toThrow();
    countedOnce([2, 1, 3], 3);
  });
});

describeKinds('a poison task on the $name board under racing claimers and reapers', (kind) => {
  it('is counted once per claim and parked at its budget, whoever gets there first', async () => {
    const MAX = 3;
    const b = await kind.make('- [ ] poison\n');
    const roles = [...Array.from({ length: 4 }, (_, i) => ['c' + i, 'claimer']), ['r0', 'reaper'], ['r1', 'reaper']] as const;
    const runs = await startTogether(roles.map(([by, role]) => ({ script: fixture('budget-racer.mjs'), args: [b.location, by, role, String(MAX)] })));
    const exits = await Promise.all(runs.map((r) => r.done));
    expect(exits.map((e) => e.stderr.replace(/.*MdclaimWarning.*\n?/g, ''))).toEqual(exits.map(() => ''));
    countedOnce(exits.flatMap((e) => lines(e.stdout, 'claimed').map(Number)), MAX);
    const [t] = await b.board.list();
    expect(t).toMatchObject({ status: 'failed', attempts: MAX, reason: expect.stringMatching(/^abandoned after 3 attempts; last held by c\d$/) });
    expect((await b.bytes()).toString()).toMatch(/^- \[❌\] poison \/\/ Attempts: 3 \/\/ Failed: abandoned after 3 attempts; last held by c\d\n$/);
  });
});
