import { describe, expect, it } from 'vitest';
import type { TaskBoard } from '../../src/index.js';
import { kinds } from './kinds.js';
import { pgTitle } from '../helpers/pg.js';

// Every board checks a request the same way before touching anything, so a
// refusal reads word for word the same on both.

type Call = (b: TaskBoard, id: string) => Promise<unknown>;

const BAD: ReadonlyArray<readonly [string, Call]> = [
  ['next without a name', (b) => b.next({ by: '' })],
  ['next with a bad lease', (b) => b.next({ by: 'a', lease: 'soon' })],
  ['next with bad tags', (b) => b.next({ by: 'a', tags: [''] })],
  ['next with a section that is no string', (b) => b.next({ by: 'a', section: 7 as unknown as string })],
  ['next with a budget of none', (b) => b.next({ by: 'a', maxAttempts: 0 })],
  ['claim of an empty id', (b) => b.claim('', { by: 'a' })],
  ['claim with a bad lease', (b, id) => b.claim(id, { by: 'a', lease: -1 })],
  ['done with a bad commit', (b, id) => b.done(id, { by: 'a', commit: 'no spaces allowed' })],
  ['fail with a reason that is no string', (b, id) => b.fail(id, { by: 'a', reason: 42 as unknown as string })],
  ['heartbeat fenced to no time', (b, id) => b.heartbeat(id, { by: 'a', claimedAt: 'yesterday' })],
  ['release by a bad name', (b, id) => b.release(id, { by: 'no spaces' })],
  ['retry with no delay', (b, id) => b.retry(id, { by: 'a', delay: undefined as unknown as string })],
  ['reopen by a bad name', (b, id) => b.reopen(id, { by: '' })],
  ['reap with a bad ttl', (b) => b.reap({ ttl: 'later' })],
  ['add of no text', (b) => b.add(5 as unknown as string)],
  ['lockPaths of no path', (b, id) => b.lockPaths(id, { by: 'a' })],
  ['unlockPaths of paths that are no array', (b, id) => b.unlockPaths(id, { by: 'a', paths: 'src/' as unknown as string[] })],
];

async function refusals(board: TaskBoard, id: string): Promise<string[]> {
  const out: string[] = [];
  for (const [what, call] of BAD) {
    const err = (await call(board, id).then(() => null, (e: unknown) => e)) as { code?: string; message?: string } | null;
    out.push(`${what}: ${err === null ? 'accepted' : `${err.code} ${err.message}`}`);
  }
  return out;
}

describe('requests, on every board', () => {
  it.skipIf(kinds.length < 2)(pgTitle('are refused in the same words by the file board and the PostgreSQL board, the board unchanged'), async () => {
    const doc = '- [ ] one\n';
    const said: string[][] = [];
    for (const kind of kinds) {
      const { board, bytes } = await kind.make(doc);
      const id = (await board.list())[0]!.id;
      said.push(await refusals(board, id));
      expect((await bytes()).toString()).toBe(doc);
    }
    for (const line of said[0]!) expect(line).toMatch(/: USAGE /);
    expect(said[1]).toEqual(said[0]);
  });
});
