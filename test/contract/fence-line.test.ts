import { expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// `mdclaim fence` asks about this claim, the line holding MDCLAIM_CLAIMED_AT by this holder, not about any line of the same id.

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

describeKinds('mdclaim fence on the $name board', (kind) => {
  const fence = (location: string, id: string, by: string, claimedAt: string) => mdclaim(['fence', '--file', location], { MDCLAIM_TASK_ID: id, MDCLAIM_BY: by, MDCLAIM_CLAIMED_AT: claimedAt });
  const idOf = async (location: string) => JSON.parse(mdclaim(['list', '--json', '--file', location]).stdout).tasks[0].id as string;

  it('refuses a claim taken over on its line though an older line of the same text reads done by the same holder', async () => {
    const mine = iso(Date.now() - 120_000);
    const { location, bytes } = await kind.make(`[✅, r1] Update the changelog\n[🟡, r2, ${iso(Date.now() - 60_000)}, 1h] Update the changelog\n`);
    const before = await bytes();
    const r = fence(location, await idOf(location), 'r1', mine);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/^error\[CONFLICT\]: .*Update the changelog.* is claimed by r2 since .*; the claim by r1 at .* is gone\n$/);
    expect((await bytes()).equals(before)).toBe(true);
  });

  it('lets this claim through while its line holds it, and its own ending when the task has one line', async () => {
    const at = iso(Date.now() - 60_000);
    const dup = await kind.make(`[✅, r2] Update the changelog\n[🟡, r1, ${at}, 1h] Update the changelog\n`);
    expect(fence(dup.location, await idOf(dup.location), 'r1', at)).toMatchObject({ status: 0, stderr: '' });
    const one = await kind.make('[✅, r1] Update the changelog\n');
    expect(fence(one.location, await idOf(one.location), 'r1', at)).toMatchObject({ status: 0, stderr: '' });
  });
});
