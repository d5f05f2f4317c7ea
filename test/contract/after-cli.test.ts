import { expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import { mdclaimAsync } from '../helpers/cli.js';
import { connect } from '../helpers/mcp.js';
import { describeKinds } from './kinds.js';

// What waits for what, everywhere a task's state shows: list and status (text
// and --json), doctor, add --after, and MCP's list and add; on every board.

const hash = (text: string) => textHash(text, 0, text.length);
const HEALTH = hash('Add the /health endpoint');

function doc(): string {
  const at = `${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z`;
  return [
    '## API', '', `- [🟡, r1, ${at}] Add the /health endpoint`, '- [ ] Add the /metrics endpoint', '',
    '## Web', '', `- [ ] Show health {after: ${HEALTH.slice(0, 6)}}`, '- [ ] Deploy {after: PLAT-9}',
    `- [ ] Cycle one {after: ${hash('Cycle two')}}`, `- [ ] Cycle two {after: ${hash('Cycle one')}}`, '',
  ].join('\n');
}

describeKinds('what a task waits for, as every view shows it, on the $name board', (kind) => {
  it('says in list and status which task a task waits for and how that task stands, and in --json each dependency', async () => {
    const { location } = await kind.make(doc());
    const list = await mdclaimAsync(['list', '--file', location]);
    expect(list.stdout).toContain(`open, waits for ${HEALTH} "Add the /health endpoint" (claimed by r1)`);
    expect(list.stdout).toContain('open, not claimable: its line waits for PLAT-9, which names no task');
    const json = JSON.parse((await mdclaimAsync(['list', '--json', '--file', location])).stdout) as { tasks: Record<string, unknown>[] };
    expect(json.tasks.find((t) => t['text'] === `Show health {after: ${HEALTH.slice(0, 6)}}`)).toMatchObject({
      claimable: false,
      waitsFor: { id: HEALTH, text: 'Add the /health endpoint', status: 'claimed', by: 'r1' },
      after: [{ id: HEALTH, status: 'claimed', by: 'r1' }],
    });
    expect(json.tasks.find((t) => t['text'] === 'Deploy {after: PLAT-9}')).toMatchObject({ claimable: false, after: [{ id: 'PLAT-9', problem: 'waits for PLAT-9, which names no task' }] });
    const status = await mdclaimAsync(['status', '--file', location]);
    expect(status.stdout).toMatch(new RegExp(`${hash('Show health')} +waits for ${HEALTH} "Add the /health endpoint" \\(claimed by r1\\)`));
    const sj = JSON.parse((await mdclaimAsync(['status', '--json', '--file', location])).stdout) as { blocked: unknown[] };
    expect(sj.blocked).toContainEqual({ id: hash('Show health'), text: `Show health {after: ${HEALTH.slice(0, 6)}}`, reason: 'after', task: { id: HEALTH, text: 'Add the /health endpoint', status: 'claimed', by: 'r1' } });
  });

  it('has doctor name each line whose after names no task or closes a cycle (exit 1)', async () => {
    const { location } = await kind.make(doc());
    const r = await mdclaimAsync(['doctor', '--json', '--file', location]);
    expect(r.status).toBe(1);
    const says = (JSON.parse(r.stdout) as { findings: { check: string; verdict: string; says: string }[] }).findings.filter((f) => f.verdict === 'fail').map((f) => f.says);
    expect(says).toEqual([
      expect.stringMatching(/(:| )9: waits for PLAT-9, which names no task$/),
      expect.stringMatching(new RegExp(`(:| )10: waits for ${hash('Cycle two')}, which waits for it in turn: a cycle$`)),
      expect.stringMatching(new RegExp(`(:| )11: waits for ${hash('Cycle one')}, which waits for it in turn: a cycle$`)),
    ]);
  });

  it('writes add --after as whole ids, so a task added later cannot make the start of one ambiguous; refuses an id that names nothing', async () => {
    const { location, bytes } = await kind.make(doc());
    const r = await mdclaimAsync(['add', 'Announce', '--after', `${HEALTH.slice(0, 5)},section Web`, '--json', '--file', location]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).task).toMatchObject({ id: hash('Announce'), text: `Announce {after: ${HEALTH}, section Web}` });
    const before = await bytes();
    const missing = await mdclaimAsync(['add', 'Other', '--after', 'zzzz', '--file', location]);
    expect([missing.status, missing.stderr]).toEqual([3, 'error[NOT_FOUND]: no task with id zzzz, nor one whose id starts with it\n']);
    expect((await bytes()).equals(before)).toBe(true);
  });

  it("gives MCP's list what list --json gives, and MCP's add what add --after writes", async () => {
    const { location } = await kind.make(doc());
    const s = await connect(location, ['--by', 'agent-1']);
    const listed = await s.call('list', {});
    const cli = JSON.parse((await mdclaimAsync(['list', '--json', '--file', location])).stdout) as { tasks: unknown[] };
    // The same but for the time left on the live claim, a moment apart.
    const timeless = (tasks: unknown) => (tasks as Record<string, unknown>[]).map(({ timeLeftMs, ...t }) => t);
    expect(timeless(listed.doc['tasks'])).toEqual(timeless(cli.tasks));
    const added = await s.call('add', { text: 'Announce', after: [HEALTH.slice(0, 6)] });
    expect([added.isError, (added.doc['task'] as { text: string }).text]).toEqual([false, `Announce {after: ${HEALTH}}`]);
  });
});
