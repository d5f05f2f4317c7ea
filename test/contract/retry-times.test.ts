import { afterAll, describe, expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { boardFile } from '../helpers/tmp.js';
import { boardUrl, dropBoards, pgTitle, uniqueBoard } from '../helpers/pg.js';
import { describeKinds, kinds, pgKind } from './kinds.js';

// A retry's `not before` time is read as claim times are (src/format/claim-time.ts), on every board:
// a time that names no instant holds nothing back, and a leap second is the instant after :59.

const ODD = ['2026-12-03T24:00:00Z', '2026-02-30T00:00:00Z', '2025-02-29T12:00:00Z', '2026-13-01T00:00:00Z', '0000-01-01T00:00:00Z'];
const board = (at: string) => `# T\n\n- [ ] odd // Attempts: 1, not before ${at}\n- [ ] after\n`;

describeKinds('retry times on the $name board', (kind) => {
  it.each(ODD)('reads not before %s as no time: the task shows none, is taken first, and the claim drops the time', async (at) => {
    const m = await kind.make(board(at));
    const [odd] = await m.board.list();
    expect(odd).toMatchObject({ text: 'odd', status: 'open', attempts: 1 });
    expect(odd!.notBefore).toBeUndefined();
    // Kept byte for byte until a claim rewrites the line.
    expect((await m.bytes()).toString()).toBe(board(at));
    expect((await m.board.next({ by: 'y' }))?.text).toBe('odd');
    expect((await m.bytes()).toString()).toMatch(/^- \[🟡, y, [^\]]+\] odd \/\/ Attempts: 2$/m);
  });

  it('reads a leap second as the instant after :59, far ahead: the task waits, and says until when', async () => {
    const m = await kind.make(board('9998-12-31T23:59:60Z'));
    expect((await m.board.list())[0]!.notBefore).toBe('9999-01-01T00:00:00Z');
    expect((await m.board.next({ by: 'y' }))?.text).toBe('after');
  });
});

describe.skipIf(!kinds.includes(pgKind))(pgTitle('import of odd retry times'), () => {
  const made: string[] = [];
  afterAll(() => dropBoards(made));

  it('loads every one (exit 0), exports the same bytes, and lists what the file board lists', () => {
    const doc = `# T\n\n${ODD.map((at, i) => `- [ ] t${i} // Attempts: 1, not before ${at}\n`).join('')}`;
    const file = boardFile(doc);
    const name = uniqueBoard('odd');
    made.push(name);
    const url = boardUrl(name);
    const r = mdclaim(['import', file, '--to', url]);
    expect(r, r.stderr).toMatchObject({ status: 0, stderr: '' });
    expect(mdclaim(['export', '--file', url]).stdout).toBe(doc);
    expect(mdclaim(['list', '--json', '--file', url]).stdout).toBe(mdclaim(['list', '--json', '--file', file]).stdout);
  });
});

describeKinds('times a four-digit year cannot write back, on the $name board', (kind) => {
  it('reads an instant past 9999 or before year 1, reached by a leap second or an offset, as no instant', async () => {
    const m = await kind.make(board('9999-12-31T23:59:60Z'));
    expect((await m.board.list())[0]!.notBefore).toBeUndefined();
    expect((await m.board.next({ by: 'y' }))?.text).toBe('odd');
  });
});

describe.skipIf(!kinds.includes(pgKind))(pgTitle('import of a claim time outside years 1–9999 UTC'), () => {
  it('is one USAGE line naming the line, exit 2, as for any claim time that names no instant', () => {
    for (const at of ['9999-12-31T23:59:60Z', '9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00+23:59']) {
      const file = boardFile(`# T\n\n- [ ] fine\n- [🟡, x, ${at}] odd\n`);
      const r = mdclaim(['import', file, '--to', boardUrl(uniqueBoard('odd'))]);
      expect(r).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: line 4: the claim time ${at} names no instant (no such day; an hour, minute or offset out of range; or outside years 1–9999 UTC)\n` });
    }
  });
});
