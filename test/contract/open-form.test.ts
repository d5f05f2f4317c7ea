import { expect, it } from 'vitest';
import { describeKinds } from './kinds.js';

// A claim and a release (or a reap, or a retry) give a line back byte for byte, `[]` as well as
// `[ ]`, and a line added is written in its section's open form, on every kind of board.

const FORMS = [
  ['[]', '# Work\n\n[] first task\n[] second task\n'],
  ['[] alone, on a board of [ ] lines', '# Work\n\n[] first task\n[ ] second task\n'],
  ['[ ] alone, on a board of [] lines', '# Work\n\n[ ] first task\n[] second task\n'],
  ['[ ]', '# Work\n\n[ ] first task\n[ ] second task\n'],
  ['- [ ]', '# Work\n\n- [ ] first task\n- [ ] second task\n'],
  ['* [ ]', '# Work\n\n* [ ] first task\n* [ ] second task\n'],
  ['1. [ ]', '# Work\n\n1. [ ] first task\n2. [ ] second task\n'],
] as const;

const pause = () => new Promise((r) => setTimeout(r, 50));

/** `attempt` again until it is not refused as CONFLICT: a claim's one-second lease has run out. Waits for that, not for a time. */
async function onceLapsed<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if ((err as { code?: string }).code !== 'CONFLICT') throw err;
      await pause();
    }
  }
}

describeKinds('the open form on the $name board', (kind) => {
  it.each(FORMS)('claim + release gives a %s line back byte for byte', async (_form, board) => {
    const b = await kind.make(board);
    const first = (await b.board.list())[0]!;
    const t = await b.board.claim(first.id, { by: 'a' });
    await b.board.release(t.id, { by: 'a' });
    expect((await b.bytes()).toString()).toBe(board);
  });

  it('keeps [] through a heartbeat, a takeover, a reap and a retry, and writes the claim of a [] line with U+FE0F after its 🟡', async () => {
    const board = '# Work\n\n[] only task\n';
    const b = await kind.make(board);
    const [one] = await b.board.list();
    const t = await b.board.claim(one!.id, { by: 'a', lease: '1s' });
    expect((await b.bytes()).toString()).toBe(`# Work\n\n[🟡\uFE0F, a, ${t.claimedAt}, 1s] only task\n`);
    await b.board.heartbeat(t.id, { by: 'a' });
    const taken = await onceLapsed(() => b.board.claim(t.id, { by: 'b' }));
    expect((await b.bytes()).toString()).toBe(`# Work\n\n[🟡\uFE0F, b, ${taken.claimedAt}] only task\n`);
    await b.board.release(t.id, { by: 'b' });
    expect((await b.bytes()).toString()).toBe(board);
    await b.board.claim(t.id, { by: 'c', lease: '1s' });
    let reaped;
    while ((reaped = await b.board.reap()).reopened.length === 0) await pause();
    expect(reaped.reopened).toHaveLength(1);
    expect((await b.bytes()).toString()).toBe(board);
    await b.board.claim(t.id, { by: 'd' });
    await b.board.retry(t.id, { by: 'd', delay: '1s' });
    expect((await b.bytes()).toString()).toMatch(/^# Work\n\n\[\] only task \/\/ Attempts: 1, not before \S+\n$/);
  }, 20_000);

  it('adds a task in the form of its section, and a new section in the form of the board', async () => {
    const b = await kind.make('# Queue\n\n## Worktree: web\n\n[] web 1\n');
    await b.board.add('web 2', { section: 'web' });
    await b.board.add('api 1', { section: 'api' });
    await b.board.add('kill 1', { section: 'Git Worktree kill' });
    await b.board.add('web 3', { section: 'Worktree: web' });
    expect((await b.bytes()).toString()).toBe(
      '# Queue\n\n## Worktree: web\n\n[] web 1\n[] web 2\n[] web 3\n\n## Worktree: api\n\n[] api 1\n\n## Git Worktree kill\n\n[] kill 1\n',
    );
  });

  it('adds in the form most of the section writes, a board of both forms kept as it is', async () => {
    const b = await kind.make('## A\n[ ] a1\n\n## B\n[] b1\n[] b2\n');
    await b.board.add('a2', { section: 'A' });
    await b.board.add('b3', { section: 'B' });
    await b.board.add('c1', { section: 'C' });
    expect((await b.bytes()).toString()).toBe('## A\n[ ] a1\n[ ] a2\n\n## B\n[] b1\n[] b2\n[] b3\n\n## C\n\n[] c1\n');
  });
});
