import { describe, expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import type { TaskBoard } from '../../src/index.js';
import type { TaskBlocker } from '../../src/board/standing.js';
import { errorOf } from '../helpers/errors.js';
import { spawnSync } from 'node:child_process';
import { CLI, mdclaimAsync } from '../helpers/cli.js';
import { describeKinds, kinds } from './kinds.js';

// `{after: …}`: a task waits for other tasks, named by id, by the start of
// one, or by section; one rule on every board (blockerOf, and task_view on
// PostgreSQL), so what a listing says is what next and claim do.

const hash = (text: string) => textHash(text, 0, text.length);

/** The board's answers by task text. */
async function answers(board: TaskBoard): Promise<Record<string, TaskBlocker | null>> {
  const { tasks, blockers } = await board.survey();
  return Object.fromEntries(tasks.map((t, i) => [t.text, blockers[i] ?? null]));
}

/** Every task next hands out, in order, each finished at once, until none is claimable. */
async function drain(board: TaskBoard): Promise<string[]> {
  const order: string[] = [];
  for (let t = await board.next({ by: 'w' }); t !== null; t = await board.next({ by: 'w' })) {
    order.push(t.text);
    await board.done(t.id, { by: 'w' });
  }
  return order;
}

describeKinds('tasks that wait for others, on the $name board', (kind) => {
  it('runs a chain across sections and a fan-in only in dependency order', async () => {
    const api = hash('Add the /health endpoint');
    const web = hash('Show health');
    const doc = [
      '## Integration', '',
      `- [ ] Run the integration tests {after: ${api}, ${web.slice(0, 6)}}`, '',
      '## Web', '',
      `- [ ] Show health {after: ${api}}`, '',
      '## API', '',
      '- [ ] Add the /health endpoint', '',
    ].join('\n');
    const { board } = await kind.make(doc);
    const first = await answers(board);
    expect(first['Add the /health endpoint']).toBeNull();
    expect(first[`Show health {after: ${api}}`]).toEqual({ kind: 'after', task: { id: api, text: 'Add the /health endpoint', status: 'open' } });
    // Fan-in: the first task waited for that is not done is the one named.
    expect(first[`Run the integration tests {after: ${api}, ${web.slice(0, 6)}}`]).toMatchObject({ kind: 'after', task: { id: api } });
    expect(await drain(board)).toEqual(['Add the /health endpoint', `Show health {after: ${api}}`, `Run the integration tests {after: ${api}, ${web.slice(0, 6)}}`]);
  });

  it('names the task waited for and how it stands when a claim of the waiting task is refused', async () => {
    const doc = `- [🟡, r1, ${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z] Add the /health endpoint\n- [ ] Show health {after: ${hash('Add the /health endpoint')}}\n`;
    const { board, location } = await kind.make(doc);
    const err = await errorOf(board.claim(hash('Show health'), { by: 'w' }));
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toBe(`${hash('Show health')} "Show health {after: ${hash('Add the /health endpoint')}}" waits for ${hash('Add the /health endpoint')} "Add the /health endpoint" (claimed by r1)`);
    const listed = await mdclaimAsync(['list', '--json', '--file', location]);
    const [, waiting] = (JSON.parse(listed.stdout) as { tasks: { claimable: boolean; after?: unknown }[] }).tasks;
    expect(waiting).toMatchObject({ claimable: false, after: [{ id: hash('Add the /health endpoint'), status: 'claimed', by: 'r1' }] });
  });

  it('waits for every other task of a section, named by its heading or its worktree name', async () => {
    const doc = '## Git Worktree api\n\n- [ ] one\n- [ ] two {after: section web}\n\n## web\n\n- [ ] three {after: section api}\n- [ ] four\n';
    const { board } = await kind.make(doc);
    // A cycle: two waits for three, which waits for two (and one).
    const a = await answers(board);
    expect(a['two {after: section web}']).toEqual({ kind: 'line', reason: `waits for ${hash('three')}, which waits for it in turn: a cycle` });
    const { board: other } = await kind.make('## web\n\n- [ ] three {after: section api}\n- [ ] four\n\n## Git Worktree api\n\n- [ ] one\n- [ ] two\n');
    expect(await drain(other)).toEqual(['four', 'one', 'two', 'three {after: section api}']);
  });

  it('keeps a task waiting, with that reason, for a dependency that failed for good, and a settled run stops', async () => {
    const doc = `- [❌, x] Add the /health endpoint // Failed: broke\n- [ ] Show health {after: ${hash('Add the /health endpoint')}}\n`;
    const { board, location } = await kind.make(doc);
    expect((await answers(board))[`Show health {after: ${hash('Add the /health endpoint')}}`]).toMatchObject({ kind: 'after', task: { status: 'failed' } });
    expect(await board.next({ by: 'w' })).toBeNull();
    expect((await errorOf(board.claim(hash('Show health'), { by: 'w' }))).message).toMatch(/waits for [0-9a-f]{12} "Add the \/health endpoint" \(failed\)$/);
    // A runner that took it for work still to come would wait out its two-minute poll.
    const run = spawnSync(process.execPath, [CLI, 'run', '--until-settled', '--by', 'r1', '--no-commit', '--interval', '120s', '--file', location, '--', 'true'], { encoding: 'utf8', timeout: 60_000 });
    expect({ signal: run.signal, ran: run.stdout + run.stderr }).toEqual({ signal: null, ran: expect.not.stringContaining('claimed') });
  });

  it('refuses a line whose after names no task, as a usage error (exit 2) naming the line, and writes nothing', async () => {
    const doc = '- [ ] one\n- [ ] two {after: PLAT-9}\n- [ ] three {after: 0123456789ab}\n- [ ] four {after: ab}\n';
    const { board, location, bytes } = await kind.make(doc);
    const before = await bytes();
    const a = await answers(board);
    expect(a['two {after: PLAT-9}']).toEqual({ kind: 'line', reason: 'waits for PLAT-9, which names no task' });
    expect(a['three {after: 0123456789ab}']).toEqual({ kind: 'line', reason: 'waits for 0123456789ab, which names no task' });
    expect(a['four {after: ab}']).toEqual({ kind: 'line', reason: 'waits for ab, which names no task' });
    const r = await mdclaimAsync(['claim', hash('two'), '--by', 'w', '--file', location]);
    expect([r.status, r.stderr]).toEqual([2, 'error[USAGE]: line 2 waits for PLAT-9, which names no task (fix the line to claim it)\n']);
    expect((await bytes()).equals(before)).toBe(true);
  });

  it('refuses every line of a cycle of two and of three, and nothing else', async () => {
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((x) => hash(`task ${x}`));
    const doc = [
      `- [ ] task a {after: ${b}}`, `- [ ] task b {after: ${a!.slice(0, 5)}}`,
      `- [ ] task c {after: ${d}}`, `- [ ] task d {after: ${e}}`, `- [ ] task e {after: ${c}}`,
      `- [ ] task f {after: ${a}}`, '- [ ] task g',
    ].join('\n');
    const { board, location } = await kind.make(`${doc}\n`);
    const { blockers } = await board.survey();
    expect(blockers.map((x) => x?.kind ?? null)).toEqual(['line', 'line', 'line', 'line', 'line', 'after', null]);
    expect(blockers[0]).toEqual({ kind: 'line', reason: `waits for ${b}, which waits for it in turn: a cycle` });
    expect(blockers[2]).toEqual({ kind: 'line', reason: `waits for ${d}, which waits for it in turn: a cycle` });
    expect(await drain(board)).toEqual(['task g']);
    const r = await mdclaimAsync(['claim', c!, '--by', 'w', '--file', location]);
    expect([r.status, r.stderr]).toEqual([2, `error[USAGE]: line 3 waits for ${d}, which waits for it in turn: a cycle (fix the line to claim it)\n`]);
  });

  it('reads the start of an id as the CLI does: once an add makes it the start of two ids, the line is refused', async () => {
    const target = 'Add the /health endpoint';
    const prefix = hash(target).slice(0, 4);
    let twin = '';
    for (let i = 0; twin === ''; i++) if (hash(`probe ${i}`).startsWith(prefix)) twin = `probe ${i}`;
    const { board } = await kind.make(`- [ ] ${target}\n- [ ] Show health {after: ${prefix}}\n`);
    expect((await answers(board))[`Show health {after: ${prefix}}`]).toMatchObject({ kind: 'after', task: { id: hash(target) } });
    await board.add(twin);
    expect((await answers(board))[`Show health {after: ${prefix}}`]).toEqual({ kind: 'line', reason: `waits for ${prefix}, the start of 2 ids: use more of one` });
    const err = await errorOf(board.claim(hash('Show health'), { by: 'w' }));
    expect([err.code, err.message]).toEqual(['USAGE', `line 2 waits for ${prefix}, the start of 2 ids: use more of one (fix the line to claim it)`]);
  });

  it('keeps a task\'s id when its after is added, changed or removed', async () => {
    const { board } = await kind.make('- [ ] one\n- [ ] Deploy\n- [ ] {after: one} Deploy `{after: x}`\n- [ ] Deploy {after: section x} \n');
    const ids = (await board.list()).map((t) => t.id);
    expect(ids.slice(1)).toEqual([hash('Deploy'), hash('Deploy `{after: x}`'), hash('Deploy')]);
    expect((await board.list()).map((t) => t.tags)).toEqual([[], [], [], []]);
  });
});

describe.skipIf(kinds.length < 2)('what waits for what, on a board and the same board imported', () => {
  it('gives the same answers on the file board and the PostgreSQL board', async () => {
    const doc = [
      '## A', '', `- [ ] a1`, `- [x] a2`, `- [⏰] a3 {after: section B}`, '',
      '## B', '', `- [ ] b1 {after: ${hash('a1')}}`, `- [❌, x] b2 {after: ${hash('a2').slice(0, 7)}}`, `- [ ] b3 {after: ${hash('a3')}, zzzz}`, '',
    ].join('\n');
    const views: unknown[] = [];
    for (const kind of kinds) {
      const { board, location } = await kind.make(doc);
      const listed = await mdclaimAsync(['list', '--json', '--file', location]);
      views.push([await board.survey().then((s) => s.blockers), JSON.parse(listed.stdout)]);
    }
    expect(views[1]).toEqual(views[0]);
    // Both boards answer by the after rule: waits, and lines refused for what they wait for.
    expect(JSON.stringify(views[0])).toMatch(/"kind":"after".*"kind":"line","reason":"waits for zzzz, which names no task"/);
  });
});
