import { describe, expect, it } from 'vitest';
import { openBoard, type PgBoard } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';
import { afterAll } from 'vitest';

// list tells how each task stands: its section, a claim's holder and time
// left (or lapsed), and who blocks an open task by a path.

const now = () => new Date().toISOString().slice(0, 19) + 'Z';
const board = (at: string) =>
  `# Work\n\n- [🟡, dana, ${at}, 2h] PLAT-1 Login {writes: src/a.ts}\n- [ ] Session {writes: src/}\n- [🟡, old, 2020-01-01T00:00:00Z] stale one\n\n## Done\n- [x] finished\n- [ ] free\n`;

const names: string[] = [];
afterAll(() => dropBoards(names));

describe('mdclaim list', () => {
  it('shows the section, a claim\'s holder and time left, a lapsed claim as lapsed, and who blocks a task by a path', () => {
    const file = boardFile(board(now()));
    const r = mdclaim(['list', '--file', file]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => l.split(/ {2,}/));
    expect(lines.map((l) => l.slice(1))).toEqual([
      [expect.stringMatching(/^claimed by dana, (1h59m|2h00m) left$/), 'Work', 'PLAT-1 Login {writes: src/a.ts}'],
      ['open, blocked by dana on PLAT-1 (src/a.ts)', 'Work', 'Session {writes: src/}'],
      ['claimed by old, lapsed', 'Work', 'stale one'],
      ['done', 'Done', 'finished'],
      ['open', 'Done', 'free'],
    ]);
  });

  it('adds timeLeftMs, lapsed and blockedBy to --json, removing no field', async () => {
    const at = now();
    const file = boardFile(board(at));
    const before = await openBoard(file).list();
    const { tasks } = JSON.parse(mdclaim(['list', '--file', file, '--json']).stdout);
    // Every field a task had is still there, unchanged.
    tasks.forEach((t: Record<string, unknown>, i: number) => expect(t).toMatchObject(JSON.parse(JSON.stringify(before[i]))));
    expect(tasks[0].timeLeftMs).toBeGreaterThan(7_000_000);
    expect(tasks[0].timeLeftMs).toBeLessThanOrEqual(7_200_000);
    expect(tasks[0].lapsed).toBe(false);
    expect(tasks[1].blockedBy).toEqual({ path: 'src/a.ts', mode: 'write', task: 'PLAT-1', by: 'dana', since: at, kind: 'declared' });
    expect(tasks[2]).toMatchObject({ lapsed: true });
    expect(tasks[2].timeLeftMs).toBeLessThan(0);
    for (const t of tasks.slice(3)) expect(Object.keys(t)).not.toEqual(expect.arrayContaining(['timeLeftMs']));
  });
});

describe.skipIf(!pgReachable)(pgTitle('mdclaim export'), () => {
  it('takes the board from --file or MDCLAIM_FILE like every command, and no other option', async () => {
    const name = uniqueBoard('x');
    names.push(name);
    const url = boardUrl(name);
    const b = openBoard(url) as PgBoard;
    const doc = '# Work\n\n- [ ] one\n- [x] two\n';
    await b.importDocument(Buffer.from(doc));
    await b.close();
    for (const [args, env] of [[['--file', url], {}], [['-f', url], {}], [[], { MDCLAIM_FILE: url }]] as const) {
      expect(mdclaim(['export', ...args], env)).toEqual({ status: 0, stdout: doc, stderr: '' });
    }
    expect(mdclaim(['export', '--from', url])).toMatchObject({ status: 2, stderr: 'error[USAGE]: unknown option --from (see mdclaim --help)\n' });
    expect(mdclaim(['export', '--file', boardFile(doc)])).toMatchObject({ status: 2, stderr: 'error[USAGE]: export needs a PostgreSQL board: --file postgres://user@host:port/db?board=NAME\n' });
  });
});
