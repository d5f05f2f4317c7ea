import { expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';
import { connect } from '../helpers/mcp.js';
import { describeKinds } from './kinds.js';

// A live claim is never claimable, whoever asks: two claimants under one name never both hold a task.

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const json = (out: string) => JSON.parse(out) as Record<string, any>;

describeKinds('a live claim on the $name board', (kind) => {
  it('is refused to a second process under the holder\'s own name, exit 4, naming the holder and what renews, the board untouched', async () => {
    const { location: f, bytes } = await kind.make('# Work\n\n- [ ] PLAT-1 Add login\n- [ ] PLAT-2 Add logout\n');
    const first = mdclaim(['next', '--file', f, '--by', 'agent-7', '--json']);
    expect(first.status).toBe(0);
    const at = json(first.stdout).task.claimedAt as string;
    const before = await bytes();
    const again = mdclaim(['claim', 'PLAT-1', '--file', f, '--by', 'agent-7']);
    expect(again.status).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(`error[CONFLICT]: PLAT-1 "Add login" already claimed by agent-7 since ${at}: a live claim is never claimed again, even under its holder's name (heartbeat renews it)\n`);
    expect(await bytes()).toEqual(before);
    // next passes over it too, and the holder's heartbeat still renews it.
    expect(mdclaim(['next', '--file', f, '--by', 'agent-7', '-q']).stdout).toBe('PLAT-2\n');
    expect(mdclaim(['heartbeat', 'PLAT-1', '--file', f, '--by', 'agent-7']).status).toBe(0);
  });

  it('is refused to the library under the same name, and a lapsed one is taken over (a new attempt, its locks gone)', async () => {
    const { board, bytes } = await kind.make('- [ ] one\n- [🟡, a, 2020-01-01T00:00:00Z] two // Attempts: 2\n  - 🔒 write docs/ since 2020-01-01T00:00:00Z\n');
    const one = (await board.next({ by: 'a' }))!;
    const err = await errorOf(board.claim(one.id, { by: 'a' }));
    expect([err.code, err.holder]).toEqual(['CONFLICT', 'a']);
    expect(err.message).toMatch(/heartbeat renews it/);
    const two = (await board.list())[1]!;
    const taken = await board.claim(two.id, { by: 'a' });
    expect(taken).toMatchObject({ by: 'a', attempts: 3 });
    expect(taken.locks).toBeUndefined();
    expect((await bytes()).toString()).toMatch(new RegExp(`^- \\[🟡, a, ${TIME}\\] one\\n- \\[🟡, a, ${TIME}\\] two // Attempts: 3\\n$`));
  });

  it('is refused to a second MCP session under the same --by: one task, one session', async () => {
    const { location, board } = await kind.make('# Work\n\n- [ ] T-1 task one\n- [ ] T-2 task two\n');
    const a = await connect(location, ['--by', 'agent-1']);
    const b = await connect(location, ['--by', 'agent-1']);
    const mine = await a.call('claim', { id: 'T-1' });
    expect(mine.isError).toBe(false);
    const theirs = await b.call('claim', { id: 'T-1' });
    expect(theirs).toMatchObject({ isError: true, doc: { error: { code: 'CONFLICT', holder: 'agent-1' } } });
    expect(theirs.text).toMatch(/^error\[CONFLICT\]: T-1 "task one" already claimed by agent-1 since .*heartbeat renews it\)$/);
    // B's next takes the other task; A's claim is A's alone, and A finishes it.
    expect((await b.call('next')).doc).toMatchObject({ task: { id: 'T-2', by: 'agent-1' } });
    expect((await b.call('done', { id: 'T-1' })).isError).toBe(true);
    expect((await a.call('done', { id: 'T-1' })).doc).toMatchObject({ task: { id: 'T-1', status: 'done' } });
    expect((await board.list()).map((t) => t.status)).toEqual(['done', 'claimed']);
  });
});
