import { afterAll, describe, expect, it } from 'vitest';
import { checkPg } from '../src/doctor/pg.js';
import { boardUrl, dropBoards, importBoard, pgReachable, uniqueBoard } from './helpers/pg.js';
import { lookAlikes } from '../src/file/look-alikes.js';
import { parseTasks } from '../src/index.js';

const listed = (md: string) => lookAlikes(md, parseTasks(md));

describe('lines that look like task lines but are none', () => {
  it('lists each with its line and why, and never a task line, prose or a commented-out line', () => {
    const md = [
      '# Board', //                                      1
      '[ ] a task', //                                   2
      '[🟡, ab12, yesterday] a claim with no time', //   3
      '[🟡, ab12, 2026-11-30T04:06:29Z, soon] lease', // 4
      '- [✅, a b] a field with a blank', //             5
      '[x]done', //                                      6
      '- [ ]', //                                        7
      '> [ ] quoted', //                                 8
      '', //                                             9
      '    [ ] indented code', //                       10
      '<!-- [ ] commented -->', //                      11
      '[link] prose', //                                12
      '[see, also] prose', //                           13
      '[🟡, , 2026-11-30T04:06:29Z] empty by', //       14
      '[✅, a, b, c, d, e] too many', //                15
    ].join('\n');
    expect(listed(md)).toEqual([
      { line: 3, why: '"[🟡, ab12, yesterday]" is not a marker mdclaim reads: the claim time "yesterday" is not RFC 3339 (2026-11-30T04:06:29Z)' },
      { line: 4, why: '"[🟡, ab12, 2026-11-30T04:06:29Z, soon]" is not a marker mdclaim reads: "soon" after the claim time is not a lease (30m, 2h)' },
      { line: 5, why: '"[✅, a b]" is not a marker mdclaim reads: the field "a b" holds a blank' },
      { line: 6, why: 'no blank after the marker\'s "]" ("[x]d")' },
      { line: 7, why: 'a marker with no text after it' },
      { line: 8, why: 'in a block quote' },
      { line: 10, why: 'in a code block, an HTML block or a heading' },
      { line: 13, why: '"[see, also]" is not a marker mdclaim reads: an unsigned marker\'s fields follow a comma ("[, id]")' },
      { line: 14, why: '"[🟡, , 2026-11-30T04:06:29Z]" is not a marker mdclaim reads: an empty field' },
      { line: 15, why: '"[✅, a, b, c, d, e]" is not a marker mdclaim reads: more fields than a marker holds' },
    ]);
  });

  it('lists none of the forms the ADW tools write', () => {
    const md = '## Worktree: w\n\n[✅, 5e1c0b2, 9a7f3c21] a\n[, taskef] b\n[⏰, taskgh] c\n[🟡 w-1, trees/gh-1] d\n[❌ w-2] e\n';
    expect(parseTasks(md)).toHaveLength(5);
    expect(listed(md)).toEqual([]);
  });
});

describe.skipIf(!pgReachable)('doctor on a PostgreSQL board', () => {
  const made: string[] = [];
  afterAll(() => dropBoards(made.splice(0)));

  it('lists the lines of its document that look like tasks but are none, as for a file board', async () => {
    const name = uniqueBoard('d');
    made.push(name);
    await importBoard(name, '# W\n\n[ ] a task\n[🟡, ab12, yesterday] a claim with no time\n');
    const found = (await checkPg(boardUrl(name))).filter((f) => f.check === 'reading');
    expect(found).toEqual([
      expect.objectContaining({ verdict: 'warn', says: `board "${name}", line 4: looks like a task but is not one: "[🟡, ab12, yesterday]" is not a marker mdclaim reads: the claim time "yesterday" is not RFC 3339 (2026-11-30T04:06:29Z)` }),
    ]);
  });
});
