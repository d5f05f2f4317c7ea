import { describe, expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import { named } from '../../src/format/named.js';
import { isPrefix, resolvePrefix } from '../../src/board/resolve-id.js';
import { errorOf } from '../helpers/errors.js';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// The start of an id (4 characters or more) names its task wherever an id
// does, on every board, by one rule (resolvePrefix).

/** Texts whose ids share their first characters, found once by trying texts. */
function twins(): [string, string] {
  const seen = new Map<string, string>();
  for (let i = 0; ; i++) {
    const text = `task ${i}`;
    const start = textHash(text, 0, text.length).slice(0, 4);
    const other = seen.get(start);
    if (other !== undefined) return [other, text];
    seen.set(start, text);
  }
}

describe('the prefix rule', () => {
  it('reads the start of an id as a prefix only from 4 characters on, and never a whole id', () => {
    expect(['3f2a', '3f2a9c', 'PLAT', 'PLAT-1x'].map(isPrefix)).toEqual([true, true, true, true]);
    expect(['3f2', 'PLAT-12', '3f2a9c0d1b2e', 'abc'].map(isPrefix)).toEqual([false, false, false, false]);
  });

  it('names the one id it starts, refuses several listing them with their text, and finds none as NOT_FOUND', () => {
    const tasks = [{ id: 'aaaa11112222', text: 'one' }, { id: 'aaaa11112222', text: 'one' }, { id: 'aaab33334444', text: 'two' }];
    expect(resolvePrefix('aaaa', tasks)).toBe('aaaa11112222');
    expect(() => resolvePrefix('aaa1', tasks)).toThrow(/no task with id aaa1/);
    const err = (() => {
      try {
        resolvePrefix('aaa', [...tasks, { id: 'aaac', text: 'a very long text that goes on and on, well past forty characters' }]);
      } catch (e) {
        return e as Error & { code: string };
      }
      throw new Error('no error');
    })();
    expect(err.code).toBe('USAGE');
    expect(err.message).toBe('aaa is the start of 3 ids: use more of one: aaaa11112222 "one", aaab33334444 "two", aaac "a very long text that goes on and on, w…"');
  });
});

describeKinds('ids by their start on the $name board', (kind) => {
  it('claims, finishes and reopens a task by a unique prefix of its hash', async () => {
    const b = await kind.make('- [ ] Write the guide\n- [ ] PLAT-7 keyed\n');
    const id = (await b.board.list())[0]!.id;
    expect(await b.board.claim(id.slice(0, 5), { by: 'a' })).toMatchObject({ id, by: 'a' });
    expect(await b.board.heartbeat(id.slice(0, 6), { by: 'a' })).toMatchObject({ id });
    expect(await b.board.done(id.slice(0, 4), { by: 'a' })).toMatchObject({ id, status: 'done' });
    expect(await b.board.reopen(id.slice(0, 7))).toMatchObject({ id, status: 'open' });
    // A tracker key's start works too.
    expect(await b.board.claim('PLAT', { by: 'a' })).toMatchObject({ id: 'PLAT-7' });
    // Three characters are no prefix: no task has that id, and the message says how long a start must be.
    const short = `no task with id ${id.slice(0, 3)} (the start of an id must be 4 or more characters)`;
    expect(await errorOf(b.board.claim(id.slice(0, 3), { by: 'a' }))).toMatchObject({ code: 'NOT_FOUND', message: short });
    expect(await errorOf(b.board.done(id.slice(0, 3), { by: 'a' }))).toMatchObject({ code: 'NOT_FOUND', message: short });
    expect(await errorOf(b.board.reopen(id.slice(0, 2)))).toMatchObject({ code: 'NOT_FOUND', message: `no task with id ${id.slice(0, 2)} (the start of an id must be 4 or more characters)` });
    // A whole id's form says nothing of the sort.
    expect((await errorOf(b.board.claim('PLAT-9', { by: 'a' }))).message).toBe('no task with id PLAT-9');
  });

  it('refuses an ambiguous prefix as USAGE listing the candidates with their text, the board unchanged', async () => {
    const [x, y] = twins();
    const b = await kind.make(`- [ ] ${x}\n- [ ] ${y}\n`);
    const [tx, ty] = await b.board.list();
    const before = await b.bytes();
    const err = await errorOf(b.board.claim(tx!.id.slice(0, 4), { by: 'a' }));
    expect(err.code).toBe('USAGE');
    expect(err.message).toBe(`${tx!.id.slice(0, 4)} is the start of 2 ids: use more of one: ${named(tx!)}, ${named(ty!)}`);
    expect(await b.bytes()).toEqual(before);
    const r = mdclaim(['claim', tx!.id.slice(0, 4), '--file', b.location, '--by', 'a']);
    expect([r.status, r.stderr]).toEqual([2, `error[USAGE]: ${err.message}\n`]);
    expect(await b.board.claim(tx!.id.slice(0, 8), { by: 'a' })).toMatchObject({ id: tx!.id });
  });
});
