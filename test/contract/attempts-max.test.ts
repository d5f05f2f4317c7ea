import { expect, it } from 'vitest';
import { parseTasks } from '../../src/index.js';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// A count saturates at the most a line records (999999): no line stops a claim for its count, on any board.

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

describeKinds('a task at the most attempts a line records on the $name board', (kind) => {
  it('is claimed by next, its count kept at 999999, its id unchanged', async () => {
    const { location: f, bytes } = await kind.make('- [ ] stuck // Attempts: 999999\n- [ ] after\n');
    const [before] = parseTasks(await bytes());
    const r = mdclaim(['next', '--file', f, '--by', 'a', '--json']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).task).toMatchObject({ id: before!.id, text: 'stuck', attempts: 999999 });
    const text = (await bytes()).toString();
    expect(text).toMatch(new RegExp(`^- \\[🟡, a, ${TIME}\\] stuck // Attempts: 999999\\n- \\[ \\] after\\n$`));
    expect(parseTasks(text)[0]).toMatchObject({ id: before!.id, text: 'stuck', attempts: 999999 });
  });

  it('is taken over when its claim has lapsed, by claim and by next, the count kept', async () => {
    const { location: f, board, bytes } = await kind.make('- [🟡, gone, 2020-01-01T00:00:00Z] one // Attempts: 999999\n- [🟡, gone, 2020-01-01T00:00:00Z] two // Attempts: 999999\n');
    const [one, two] = await board.list();
    const taken = mdclaim(['claim', one!.id, '--file', f, '--by', 'b', '--json']);
    expect([taken.status, taken.stderr]).toEqual([0, '']);
    expect(JSON.parse(taken.stdout).task).toMatchObject({ id: one!.id, by: 'b', attempts: 999999 });
    const next = mdclaim(['next', '--file', f, '--by', 'c', '--json']);
    expect([next.status, next.stderr]).toEqual([0, '']);
    expect(JSON.parse(next.stdout).task).toMatchObject({ id: two!.id, by: 'c', attempts: 999999 });
    const text = (await bytes()).toString();
    expect(text).toMatch(new RegExp(`^- \\[🟡, b, ${TIME}\\] one // Attempts: 999999\\n- \\[🟡, c, ${TIME}\\] two // Attempts: 999999\\n$`));
    expect(parseTasks(text).map((t) => [t.id, t.attempts])).toEqual([[one!.id, 999999], [two!.id, 999999]]);
  });

  it('does not stop a runner: run --loop --until-settled works through every task', async () => {
    const { location: f, bytes } = await kind.make('- [ ] one // Attempts: 999999\n- [ ] two\n');
    const r = mdclaim(['run', '--file', f, '--by', 'r', '--loop', '--until-settled', '--no-commit', '--', 'true']);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/error/);
    expect((await bytes()).toString()).toBe('- [✅, r] one // Attempts: 999999\n- [✅, r] two\n');
  });
});
