import { expect, it } from 'vitest';
import { formatClaimedAt } from '../../src/format/marker.js';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// reap() says what it did: which lapsed claims it reopened and which it parked
// at the budget, so no caller works it out again.

const OLD = formatClaimedAt(Date.now() - 2 * 3_600_000);

describeKinds('reap on the $name board', (kind) => {
  it('says which claims it reopened and which it parked, in board order, dry run or not', async () => {
    const doc = `- [🟡, ann, ${OLD}] once // Attempts: 1\n- [🟡, bob, ${OLD}] thrice // Attempts: 3\n- [ ] open\n- [🟡, cat, ${OLD}] twice // Attempts: 2\n`;
    const { board } = await kind.make(doc);
    const dry = await board.reap({ maxAttempts: 3, dryRun: true });
    expect([dry.map((t) => t.text), dry.reopened.map((t) => t.text), dry.parked.map((t) => t.text)]).toEqual([['once', 'thrice', 'twice'], ['once', 'twice'], ['thrice']]);
    const done = await board.reap({ maxAttempts: 3 });
    expect([done.reopened.map((t) => t.by), done.parked.map((t) => t.by)]).toEqual([['ann', 'cat'], ['bob']]);
    // As they were: the claims, not what they became.
    expect(done.parked[0]).toMatchObject({ status: 'claimed', attempts: 3 });
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'failed', 'open', 'open']);
    // Without a budget nothing is parked; an array as before.
    const none = await board.reap();
    expect([none, none.reopened, none.parked]).toEqual([[], [], []]);
  });

  it('is what the reap command prints, on every board', async () => {
    const { location } = await kind.make(`- [🟡, bob, ${OLD}] thrice // Attempts: 3\n- [🟡, ann, ${OLD}] once\n`);
    const r = mdclaim(['reap', '--max-attempts', '3', '--json', '--file', location]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { reaped: { text: string }[]; parked: string[] };
    expect(out.reaped.map((t) => t.text)).toEqual(['thrice', 'once']);
    expect(out.parked).toHaveLength(1);
  });
});
