import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { fixture, start } from './helpers/procs.js';
import { boardFile } from './helpers/tmp.js';

// The journal is written after the board, under the board's lock: a SIGKILL
// between the two loses at most that write's line, and never leaves a line
// for a change the board does not show. The processes are real and so is the
// signal; MDCLAIM_TEST_KILL_BEFORE_JOURNAL=N has a process SIGKILL itself
// exactly there, after the board's write of its Nth journalled change.

const board = (n: number) => `# Work\n\n${Array.from({ length: n }, (_, i) => `- [ ] task ${i} {t${i % 3}}`).join('\n')}\n`;

interface Line {
  event: string;
  id: string;
  text: string;
  by?: string;
}

function journal(file: string): Line[] {
  const text = readFileSync(`${file}.history.jsonl`, 'utf8');
  expect(text === '' || text.endsWith('\n'), 'the journal ends with a whole line').toBe(true);
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
}

/**
 * Every journal line is a change the board shows: per task, the journal's
 * last event and the board agree, or the board is one change ahead (the one
 * line a kill may lose); never behind, never two ahead. Returns how many tasks are ahead.
 */
function assertJournalTrue(file: string): number {
  const lines = journal(file);
  const last = new Map<string, string>();
  for (const l of lines) last.set(l.text, l.event);
  let ahead = 0;
  for (const t of parseTasks(readFileSync(file, 'utf8'))) {
    const said = last.get(t.text) ?? 'none';
    const same = { none: 'open', claimed: 'claimed', done: 'done' }[said];
    const next = { none: 'claimed', claimed: 'done', done: undefined }[said];
    expect([same, next], `${t.text}: the journal says ${said}, the board ${t.status}`).toContain(t.status);
    if (t.status !== same) ahead++;
  }
  return ahead;
}

describe('the journal under SIGKILL', () => {
  it('loses only the line of the write it was killed after, and the board shows every line it keeps', async () => {
    const file = boardFile(board(10));
    writeFileSync(`${file}.history.jsonl`, '');
    // Writes: claim, done, claim, done, claim (the 5th): killed after its board write, before its line.
    const r = await start(fixture('claim-loop.mjs'), [file, 'k1'], { MDCLAIM_TEST_KILL_BEFORE_JOURNAL: '5' }).done;
    expect(r.signal).toBe('SIGKILL');
    const tasks = parseTasks(readFileSync(file, 'utf8'));
    expect(tasks.slice(0, 3).map((t) => t.status)).toEqual(['done', 'done', 'claimed']);
    expect(journal(file).map((l) => `${l.event} ${l.text}`)).toEqual([
      'claimed task 0 {t0}', 'done task 0 {t0}', 'claimed task 1 {t1}', 'done task 1 {t1}',
    ]);
    expect(assertJournalTrue(file)).toBe(1);
  }, 60_000);

  it('keeps that rule when claimers are killed at random points, many times over', async () => {
    const file = boardFile(board(120));
    writeFileSync(`${file}.history.jsonl`, '');
    let ahead = 0;
    for (let round = 0; round < 8; round++) {
      // Some kill themselves between a board write and its line; one is killed from outside, wherever it is.
      const procs = [1, 2, 3].map((k) => start(fixture('claim-loop.mjs'), [file, `r${round}k${k}`], { MDCLAIM_TEST_KILL_BEFORE_JOURNAL: String(1 + Math.floor(Math.random() * 9)) }));
      const outside = start(fixture('claim-loop.mjs'), [file, `r${round}x`]);
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 300));
      outside.child.kill('SIGKILL');
      await Promise.all([...procs, outside].map((p) => p.done));
      ahead = assertJournalTrue(file);
    }
    // At least the self-killed ones lost their line: the check looked at real losses.
    expect(ahead).toBeGreaterThan(0);
  }, 240_000);

  it('the check refuses a journal that records what the board does not show', () => {
    const file = boardFile(board(2));
    writeFileSync(`${file}.history.jsonl`, `${JSON.stringify({ event: 'claimed', id: 'x', text: 'task 0 {t0}', by: 'a' })}\n`);
    expect(() => assertJournalTrue(file)).toThrow();
  });
});
