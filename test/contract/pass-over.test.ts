import { expect, it } from 'vitest';
import { named } from '../../src/format/named.js';
import { mdclaim } from '../helpers/cli.js';
import { connect } from '../helpers/mcp.js';
import { describeKinds } from './kinds.js';

// A task its own line keeps from being claimed stops no one: next and run pass over it, saying so once,
// and claim of it is the usage error naming the line.

const BOARD = '# Work\n\n- [ ] Port the parser {writes: ../outside.ts}\n- [ ] Write the guide\n- [ ] Ship it\n';
const WHY = 'line 3 declares path "../outside.ts" leaves the board\'s directory (fix the line to claim it)';

describeKinds('a task that cannot be claimed on the $name board', (kind) => {
  it('is passed over by next with one line naming it and why, and the next task is taken', async () => {
    const { location: f, board } = await kind.make(BOARD);
    const [bad] = await board.list();
    const r = mdclaim(['next', '--file', f, '--by', 'a', '-q']);
    expect([r.status, r.stderr]).toEqual([0, `passed over ${named(bad!)}: ${WHY}\n`]);
    expect(r.stdout).toMatch(/^[0-9a-f]{12}\n$/);
    expect((await board.list()).map((t) => [t.text, t.status])).toEqual([
      ['Port the parser {writes: ../outside.ts}', 'open'],
      ['Write the guide', 'claimed'],
      ['Ship it', 'open'],
    ]);
    // claim of it keeps the clear usage error.
    expect(mdclaim(['claim', bad!.id, '--file', f, '--by', 'a'])).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: ${WHY}\n` });
  });

  it('is passed over by run --loop --until-settled, said once, and every other task runs', async () => {
    const { location: f, board } = await kind.make(BOARD);
    const [bad] = await board.list();
    const r = mdclaim(['run', '--file', f, '--by', 'r', '--loop', '--until-settled', '--interval', '1s', '--no-commit', '--', 'true']);
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('passed over'))).toEqual([`mdclaim: passed over ${named(bad!)}: ${WHY}`]);
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'done', 'done']);
  });

  it('is passed over by a single run, which takes the task after it', async () => {
    const { location: f, board } = await kind.make(BOARD);
    const r = mdclaim(['run', '--file', f, '--by', 'r', '--no-commit', '--', 'true']);
    expect(r.status).toBe(0);
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'done', 'open']);
  });
});

describeKinds('a listing of a task its own line keeps from being claimed on the $name board', (kind) => {
  it('says claimable: false and why, as claim of it refuses it, and claimable: true for the tasks claim takes', async () => {
    const text = '# Work\n\n- [ ] Port the parser {writes: ../outside.ts}\n- [ ] check the "x // Failed: y" case\n- [ ] Write the guide\n';
    const { location: f, board } = await kind.make(text);
    const listed = JSON.parse(mdclaim(['list', '--file', f, '--json']).stdout) as { tasks: { id: string; claimable: boolean; refused?: string }[] };
    expect(listed.tasks.map((t) => [t.claimable, t.refused])).toEqual([
      [false, 'declares path "../outside.ts" leaves the board\'s directory'],
      [false, 'holds "// Failed:" in its text, where only a failure\'s reason may follow'],
      [true, undefined],
    ]);
    // What claim of each does, in the same order: the two refused in one usage line naming the line, the third taken.
    const claims = listed.tasks.map((t) => mdclaim(['claim', t.id, '--file', f, '--by', 'a']).status);
    expect(claims).toEqual([2, 2, 0]);
    expect(mdclaim(['list', '--file', f]).stdout).toContain('open, not claimable: its line declares path "../outside.ts"');
    // MCP's list answers as list --json does, claimable and all.
    const s = await connect(f, ['--by', 'agent-m']);
    const overMcp = (await s.call('list')).doc as { tasks: unknown[] };
    // timeLeftMs of the claim taken above counts down between the two reads: compared apart from it.
    const steady = (tasks: unknown[]) => tasks.map((t) => ({ ...(t as object), timeLeftMs: undefined }));
    const overCli = JSON.parse(mdclaim(['list', '--file', f, '--json']).stdout) as { tasks: unknown[] };
    expect(steady(overMcp.tasks)).toEqual(steady(overCli.tasks));
    expect(overMcp.tasks.map((t) => (t as { claimable: boolean }).claimable)).toEqual([false, false, false]);
    await board.close?.();
  });
});

describeKinds('a line no one can claim, waiting for a retry too, on the $name board', (kind) => {
  it('gets one answer from claim, next, list --json and MCP: its own line, first, as exit 2', async () => {
    const text = '# Work\n\n- [ ] do it {writes: ../outside.txt} // Attempts: 1, not before 2099-01-01T00:00:00Z\n';
    const why = 'declares path "../outside.txt" leaves the board\'s directory';
    const { location: f, board } = await kind.make(text);
    const [task] = await board.list();
    const listed = JSON.parse(mdclaim(['list', '--file', f, '--json']).stdout) as { tasks: { claimable: boolean; refused?: string; retryInMs?: number }[] };
    expect(listed.tasks.map((t) => [t.claimable, t.refused, t.retryInMs])).toEqual([[false, why, undefined]]);
    expect(mdclaim(['claim', task!.id, '--file', f, '--by', 'a'])).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: line 3 ${why} (fix the line to claim it)\n` });
    // next takes nothing; it passes over (saying so) only a task it would take but for its line.
    const next = mdclaim(['next', '--file', f, '--by', 'a', '-q']);
    expect([next.status, next.stdout, next.stderr.includes('passed over')]).toEqual([3, '', false]);
    const s = await connect(f, ['--by', 'agent-m']);
    expect(await s.call('claim', { id: task!.id })).toMatchObject({ isError: true, text: `error[USAGE]: line 3 ${why} (fix the line to claim it)` });
    expect((await board.list()).map((t) => t.status)).toEqual(['open']);
  });
});
