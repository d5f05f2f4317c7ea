import { describe, expect, it } from 'vitest';
import { kinds } from './kinds.js';

// A line added is written in the board's own open form, and a claim and a release give a line back
// byte for byte, on every kind of board.

const FORMS = [
  ['[ ]', '# Work\n\n[ ] first task\n[ ] second task\n'],
  ['- [ ]', '# Work\n\n- [ ] first task\n- [ ] second task\n'],
  ['* [ ]', '# Work\n\n* [ ] first task\n* [ ] second task\n'],
  ['1. [ ]', '# Work\n\n1. [ ] first task\n2. [ ] second task\n'],
] as const;

describe.each(kinds)('the open form on the $name board', (kind) => {
  it.each(FORMS)('claim + release gives a %s line back byte for byte', async (_form, board) => {
    const b = await kind.make(board);
    const first = (await b.board.list())[0]!;
    const t = await b.board.claim(first.id, { by: 'a' });
    await b.board.release(t.id, { by: 'a' });
    expect((await b.bytes()).toString()).toBe(board);
  });

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
