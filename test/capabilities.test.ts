import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { boardUrl, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';

// What only one kind of board does is refused on the other in one form of
// words, `<what> needs a <kind> board: <how>`, as a usage error (exit 2), the
// board untouched.

const NEEDS = /^error\[USAGE\]: \S+(?: \S+)? needs a (?:PostgreSQL|file) board: .+\n$/;

describe('features one kind of board lacks', () => {
  it('are refused on a file board in one form of words, library and CLI alike', async () => {
    const file = boardFile('- [ ] one\n');
    const board = openBoard(file);
    expect(board.kind).toBe('file');
    // A file board is its own document: it has no export to refuse.
    expect('exportDocument' in board).toBe(false);
    for (const args of [['export'], ['migrate']]) {
      const r = mdclaim([...args, '--file', file]);
      expect([args[0], r.status]).toEqual([args[0], 2]);
      expect(r.stderr).toMatch(NEEDS);
    }
    await board.close();
  });

  it.skipIf(!pgReachable)(pgTitle('are refused on a PostgreSQL board in the same form'), () => {
    const url = boardUrl(uniqueBoard('cap'));
    expect(openBoard(url).kind).toBe('pg');
    for (const args of [['lock', '--', 'true'], ['edit'], ['init']]) {
      const r = mdclaim([args[0]!, '--file', url, ...args.slice(1)], { EDITOR: 'true' });
      expect([args[0], r.status]).toEqual([args[0], 2]);
      expect(r.stderr).toMatch(NEEDS);
      expect(r.stderr).toContain('on a PostgreSQL board, ');
    }
  });
});
