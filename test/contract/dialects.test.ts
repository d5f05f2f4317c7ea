import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeKinds } from './kinds.js';

// The line forms other ADW tools write (docs/FORMAT.md, dialects), read the same on every kind of
// board: each line's status as its sign says, its fields placed where their form and look say.

const fixture = (name: string) => readFileSync(new URL(`../fixtures/dialects/${name}.md`, import.meta.url), 'latin1');
const fields = (t: { status: string; by?: string; commit?: string; claimedAt?: string; fields?: string[]; section?: string }) => ({
  status: t.status, by: t.by, commit: t.commit, claimedAt: t.claimedAt, fields: t.fields, section: t.section,
});

describeKinds('ADW dialects on the $name board', (kind) => {
  it('reads the forms mhmdez/adw writes, and its worktree headings', async () => {
    const b = await kind.make(Buffer.from(fixture('mhmdez'), 'latin1'));
    const tasks = await b.board.list();
    expect(tasks.map(fields)).toEqual([
      { status: 'done', by: undefined, commit: undefined, claimedAt: undefined, fields: ['5e1c0b2', '9a7f3c21'], section: 'Worktree: phase-01-setup' },
      { status: 'done', by: '44d0e6ab', commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree: phase-01-setup' },
      { status: 'claimed', by: '7b2d90ef', commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree: phase-01-setup' },
      { status: 'open', by: undefined, commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree: phase-01-setup' },
      { status: 'blocked', by: undefined, commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree: phase-01-setup' },
      { status: 'failed', by: '3c9e11aa', commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree phase-02' },
      { status: 'open', by: undefined, commit: undefined, claimedAt: undefined, fields: undefined, section: 'Worktree phase-02' },
    ]);
    // An untimed claim stays taken: the next task is the open one below it.
    expect(await b.board.next({ by: 'me' })).toMatchObject({ text: 'Add the CLI entry point {opus}', status: 'claimed' });
  });

  it('reads the forms agf writes', async () => {
    const b = await kind.make(Buffer.from(fixture('agf'), 'latin1'));
    expect((await b.board.list()).map(fields)).toEqual([
      { status: 'done', by: 'taskab', commit: '0c4f1d2e9b7a', claimedAt: undefined, fields: undefined, section: 'Git Worktree feature-auth {af_wt_001}' },
      { status: 'claimed', by: 'taskcd', commit: undefined, claimedAt: undefined, fields: undefined, section: 'Git Worktree feature-auth {af_wt_001}' },
      { status: 'open', by: undefined, commit: undefined, claimedAt: undefined, fields: ['taskef'], section: 'Git Worktree feature-auth {af_wt_001}' },
      { status: 'blocked', by: undefined, commit: undefined, claimedAt: undefined, fields: ['taskgh'], section: 'Git Worktree feature-auth {af_wt_001}' },
    ]);
  });

  it('reads the forms circuit-synth writes, so their claims and failures are seen as taken', async () => {
    const b = await kind.make(Buffer.from(fixture('circuit-synth'), 'latin1'));
    expect((await b.board.list()).map(fields)).toEqual([
      { status: 'claimed', by: 'w-41c7aa', commit: undefined, claimedAt: undefined, fields: ['trees/gh-318'], section: 'Open issues' },
      { status: 'failed', by: 'w-9d02be', commit: undefined, claimedAt: undefined, fields: undefined, section: 'Open issues' },
      { status: 'done', by: 'w-1b3c9d', commit: '8e7f6a5', claimedAt: undefined, fields: undefined, section: 'Open issues' },
      { status: 'blocked', by: undefined, commit: undefined, claimedAt: undefined, fields: ['w-5e60aa', 'trees/gh-322'], section: 'Open issues' },
      { status: 'open', by: undefined, commit: undefined, claimedAt: undefined, fields: undefined, section: 'Open issues' },
    ]);
    expect(await b.board.next({ by: 'me' })).toMatchObject({ text: 'Add a test for the BOM writer' });
  });

  it('leaves a foreign line as written until a command changes its status, then writes its own form', async () => {
    const src = fixture('agf');
    const b = await kind.make(Buffer.from(src, 'latin1'));
    const open = (await b.board.list())[2]!;
    const t = await b.board.claim(open.id, { by: 'me' });
    expect(t).not.toHaveProperty('fields');
    const after = (await b.bytes()).toString('latin1');
    // Only the claimed line changed, and it reads in mdclaim's own form.
    expect(after.replace(/- \[.{4}, me, [^\]]+\] Wire up logout/, '- [, taskef] Wire up logout')).toBe(src);
    await b.board.done(t.id, { by: 'me' });
    expect((await b.bytes()).toString()).toContain('- [✅, me] Wire up logout\n');
  });
});
