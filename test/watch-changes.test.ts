import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openBoard, PgBoard } from '../src/index.js';
import { PgChanges } from '../src/pg/changes.js';
import { FileChanges } from '../src/file/changes.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';

// What wakes mdclaim watch: the change notification itself, not the poll behind it
// (each source here polls once a minute, so only a notification can come in time).

const HOUR = 3_600_000;

function pokes(): { count: () => number; next: (after: number) => Promise<void>; poke: () => void } {
  let n = 0;
  let waiters: (() => void)[] = [];
  return {
    count: () => n,
    poke: () => {
      n++;
      for (const w of waiters.splice(0)) w();
    },
    next: (after) => new Promise<void>((resolve) => (n > after ? resolve() : waiters.push(resolve))),
  };
}

describe('the file board\'s change notification', () => {
  it('pokes when the board is written in place and when it is replaced, not for other files', async () => {
    const file = boardFile('- [ ] one\n');
    const source = new FileChanges(file, HOUR);
    const p = pokes();
    try {
      source.start(p.poke);
      writeFileSync(`${file}.other`, 'x');
      await new Promise((r) => setTimeout(r, 500));
      expect(p.count()).toBe(0);
      writeFileSync(file, '- [ ] two\n');
      await p.next(0);
      const seen = p.count();
      const { renameSync } = await import('node:fs');
      writeFileSync(`${file}.new`, '- [ ] three\n');
      renameSync(`${file}.new`, file);
      await p.next(seen);
    } finally {
      await source.close();
    }
  });
});

const names: string[] = [];
afterAll(() => dropBoards(names));

describe.skipIf(!pgReachable)(pgTitle('the PostgreSQL board\'s change notification'), () => {
  it('pokes on the board\'s NOTIFY (a done), and at its first reading of the change mark', async () => {
    const name = uniqueBoard('changes');
    names.push(name);
    const board = new PgBoard(boardUrl(name));
    const source = new PgChanges(boardUrl(name), HOUR);
    const p = pokes();
    try {
      await board.importDocument(Buffer.from('- [ ] one\n- [ ] two\n'));
      const t = (await board.next({ by: 'a' }))!;
      source.start(p.poke);
      // The first reading of the mark is a change (nothing was known before); LISTEN follows it.
      await p.next(0);
      await source.listening;
      const seen = p.count();
      await board.done(t.id, { by: 'a' });
      await p.next(seen); // the hour-long poll would fail the test first
    } finally {
      await source.close();
      await board.close();
    }
  });
});

describe('the change feed every board hands out', () => {
  it('of a file board pokes when another handle changes the board, and hands off its path', async () => {
    const file = boardFile('- [ ] one\n');
    const board = openBoard(file);
    const other = openBoard(file);
    const source = await board.changes();
    const p = pokes();
    try {
      expect(board.handOff).toBe(file);
      source.start(p.poke);
      await other.add('two');
      await p.next(0);
    } finally {
      await source.close();
      await board.close();
      await other.close();
    }
  });

  it.skipIf(!pgReachable)(pgTitle('of a PostgreSQL board pokes when another handle changes the board, and hands off its URL without a password'), async () => {
    const name = uniqueBoard('feed');
    names.push(name);
    const url = new URL(boardUrl(name));
    url.password = 'not-for-others';
    const board = openBoard(url.href);
    const other = openBoard(boardUrl(name));
    const p = pokes();
    await other.importDocument(Buffer.from('- [ ] one\n'));
    const source = await board.changes();
    try {
      expect(board.handOff).not.toContain('not-for-others');
      source.start(p.poke);
      // The first reading of the change mark is a change; the add after it is another.
      await p.next(0);
      const seen = p.count();
      await other.add('two');
      await p.next(seen);
    } finally {
      await source.close();
      await board.close();
      await other.close();
    }
  });
});
