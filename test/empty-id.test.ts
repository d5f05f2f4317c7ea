import { expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { errorOf } from './helpers/errors.js';
import { describeKinds } from './contract/kinds.js';

// An empty task id is a usage error that says what to give instead, on every board and through the library.

const BOARD = '# Work\n\n- [ ] T-1 first\n';
const SAID = 'the task id is empty: name a task by its id, its tracker key or the start of its id (list shows them)';

describeKinds('an empty task id on the $name board', (kind) => {
  it('is refused in one line saying what a task id is, the board untouched', async () => {
    const m = await kind.make(BOARD);
    const before = await m.bytes();
    for (const cmd of ['claim', 'heartbeat', 'done', 'release']) {
      expect(mdclaim([cmd, '', '--by', 'x', '--file', m.location])).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: ${SAID}\n` });
    }
    const err = await errorOf(m.board.claim('', { by: 'x' }));
    expect([err.code, err.message]).toEqual(['USAGE', SAID]);
    const typed = await errorOf(m.board.claim(7 as unknown as string, { by: 'x' }));
    expect([typed.code, typed.message]).toEqual(['USAGE', 'a task id must be a string, got number']);
    expect(await m.bytes()).toEqual(before);
  });
});
