import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../../src/index.js';
import { fixture, start } from '../helpers/procs.js';
import { boardFile } from '../helpers/tmp.js';
import { describeKinds, type Kind } from './kinds.js';

// Racing processes with path locks, written once for every board.

const PROCS = 6;
const TASKS = 60;
// Paths that overlap by file and by directory, and some that overlap nothing else.
const POOL = ['src/a.ts', 'src/b.ts', 'src/', 'docs/api.md', 'docs/', 'lib/x.ts', 'lib/y.ts', 'test/a.ts', 'test/b.ts', 'README.md'];

/** Tasks declaring paths from the pool (`hidden`: in a form mdclaim does not read); every fourth declares nothing. */
function board(hidden: boolean): string {
  const w = hidden ? 'hidden-writes' : 'writes';
  const r = hidden ? 'hidden-reads' : 'reads';
  const lines = Array.from({ length: TASKS }, (_, i) => {
    if (i % 4 === 3) return `- [ ] task ${i}`;
    const writes = `{${w}: ${POOL[(i * 7) % POOL.length]}}`;
    const reads = i % 3 === 0 ? ` {${r}: ${POOL[(i * 3 + 2) % POOL.length]}}` : '';
    return `- [ ] task ${i} ${writes}${reads}`;
  });
  return '# Race\n\n' + lines.join('\n') + '\n';
}

// The rule, written out again here so the checker does not trust the code it checks.
const under = (dir: string, p: string) => dir.endsWith('/') && p.startsWith(dir);
const overlap = (a: string, b: string) => a === b || under(a, b) || under(b, a);
const conflict = (a: { mode: string; path: string }, b: { mode: string; path: string }) => (a.mode === 'write' || b.mode === 'write') && overlap(a.path, b.path);

interface Hold {
  who: string;
  task: string;
  mode: string;
  path: string;
}

/** Replay the log line by line: at every acquire, no other holder may hold a conflicting path. Returns each violation. */
function replay(log: string): string[] {
  return replayed(log).bad;
}

/** The violations, and the most holders that held paths at one time. */
function replayed(log: string): { bad: string[]; most: number } {
  const holds = new Map<string, Hold[]>();
  const bad: string[] = [];
  let most = 0;
  log.split('\n').forEach((line, i) => {
    const [verb, who, task, mode, path] = line.split(' ');
    if (verb === 'acquire') {
      const h = { who: who!, task: task!, mode: mode!, path: path! };
      for (const [other, theirs] of holds) {
        if (other === who) continue;
        for (const o of theirs) if (conflict(h, o)) bad.push(`line ${i + 1}: ${who} took ${path} (${mode}) on ${task} while ${other} held ${o.path} (${o.mode}) on ${o.task}`);
      }
      holds.set(who!, [...(holds.get(who!) ?? []), h]);
      most = Math.max(most, holds.size);
    } else if (verb === 'release') holds.delete(who!);
  });
  return { bad, most };
}

async function race(kind: Kind, paths: 'declared' | 'hidden') {
  const b = await kind.make(board(paths === 'hidden'));
  // The log lives in a fresh directory of its own (beside the board, for a file board).
  const log = boardFile('', 'holds.log');
  const runs = Array.from({ length: PROCS }, (_, i) =>
    start(fixture('path-racer.mjs'), [b.location, `w${i}`, log, '2', String(i + 1), paths], { PATH_POOL: JSON.stringify(POOL), PATH_RACERS: String(PROCS) }),
  );
  const exits = await Promise.all(runs.map((r) => r.done));
  return { b, exits, log: readFileSync(log, 'utf8') };
}

describe('the replay checker', () => {
  it('sees a conflict on the step it happens, and nothing where readers share or a holder let go first', () => {
    expect(replay(['acquire a.0 T1 read docs/', 'acquire b.0 T2 read docs/api.md', 'release a.0 T1', 'acquire c.0 T3 write docs/'].join('\n'))).toEqual([
      'line 4: c.0 took docs/ (write) on T3 while b.0 held docs/api.md (read) on T2',
    ]);
    expect(replay(['acquire a.0 T1 write src/', 'release a.0 T1', 'acquire b.0 T2 write src/a.ts', 'acquire b.1 T3 write lib/'].join('\n'))).toEqual([]);
    expect(replay('acquire a.0 T1 write src/a.ts\nacquire a.1 T2 read src/\n')).toHaveLength(1);
  });
});

describeKinds('racing processes with path locks on the $name board', (kind) => {
  it(`never hold conflicting paths at once: ${PROCS} processes, two claims in flight each, every step replayed`, async () => {
    const { b, exits, log } = await race(kind, 'declared');
    for (const e of exits) expect([e.code, e.stderr.replace(/.*MdclaimWarning.*\n?/g, '')]).toEqual([0, '']);
    const acquires = log.split('\n').filter((l) => l.startsWith('acquire '));
    expect(acquires.length).toBeGreaterThan(TASKS / 2);
    // The locks taken while working were contested: some refused, some granted.
    expect(log).toMatch(/^refused /m);
    const { bad, most } = replayed(log);
    expect(bad).toEqual([]);
    // Holders that did not conflict held their paths at the same time: spans overlapped, so a conflict would have shown.
    expect(most).toBeGreaterThan(1);
    // Every task done once, and no lock line left behind.
    const text = (await b.bytes()).toString();
    expect(parseTasks(text).map((t) => t.status)).toEqual(Array(TASKS).fill('done'));
    expect(text).not.toContain('🔒');
  });

  it('show conflicts to the same checker when the same race runs with paths mdclaim does not read (control)', async () => {
    const { exits, log } = await race(kind, 'hidden');
    for (const e of exits) expect(e.code).toBe(0);
    // If this fails, the checker could not tell a board that keeps paths apart from one that does not.
    expect(replay(log).length).toBeGreaterThan(0);
  });
});
