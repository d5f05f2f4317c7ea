import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { boardFile } from '../helpers/tmp.js';
import { describeKinds, kinds, type Made } from './kinds.js';

// `mdclaim history [ID] [--since D] [--by NAME] [--json]`: the same lines on
// every kind of board, newest last, but for the times.

const BOARD = '# Work\n\n- [ ] PLAT-1 Add login\n- [ ] PLAT-2 Rate limit\n';

async function worked(make: (c: string) => Promise<Made>): Promise<Made> {
  const b = await make(BOARD);
  if (b.board.kind === 'file') writeFileSync(`${b.location}.history.jsonl`, '');
  const run = (...args: string[]) => expect(mdclaim([...args, '--file', b.location]).status, args.join(' ')).toBe(0);
  run('claim', 'PLAT-1', '--by', 'ann');
  run('done', 'PLAT-1', '--by', 'ann', '--commit', 'abc1234');
  run('next', '--by', 'bob');
  run('fail', 'PLAT-2', '--by', 'bob', '--reason', 'CI red');
  run('reopen', 'PLAT-2', '--by', 'ops');
  run('add', 'PLAT-3 Dark mode');
  return b;
}

/** A line without its times: the event's, and a claim's. */
const untimed = (line: string) => line.replace(/^\S+ {2}/, '').replace(/ at \d{4}-\S+Z/, ' at T');

const seen: Record<string, string[]> = {};

describeKinds('mdclaim history on the $name board', (kind) => {
  // The tests below only read the history: they share one board, worked once by the CLI's own commands.
  let made: Made;
  beforeAll(async () => {
    made = await worked(kind.make);
  });

  it('prints one line per event, oldest first; with an id, that task\'s', async () => {
    const b = made;
    expect(b.board.keepsHistory).toBe(true);
    const r = mdclaim(['history', '--file', b.location]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.trimEnd().split('\n').filter((l) => !/ (imported|renewed) /.test(l));
    expect(lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}/.test(l))).toBe(true);
    expect(lines.map(untimed)).toEqual([
      'PLAT-1  claimed by ann at T for 30m  [claim]',
      'PLAT-1  done by ann (abc1234)  [done]',
      'PLAT-2  claimed by bob at T for 30m  [next]',
      'PLAT-2  failed by bob: CI red  [fail]',
      'PLAT-2  released by ops from bob: CI red  [reopen]',
      'PLAT-3  added  [add]',
    ]);
    seen[kind.name] = lines.map(untimed);
    const one = mdclaim(['history', 'PLAT-2', '--file', b.location]);
    expect(one.stdout.trimEnd().split('\n').filter((l) => !/ (imported|renewed) /.test(l)).map(untimed)).toEqual(lines.slice(2, 5).map(untimed));
  });

  it('keeps to --by and --since, and prints one JSON document with --json', async () => {
    const b = made;
    const bob = JSON.parse(mdclaim(['history', '--by', 'bob', '--json', '--file', b.location]).stdout) as { events: { event: string; by: string }[] };
    expect(bob.events.map((e) => [e.event, e.by])).toEqual([['claimed', 'bob'], ['failed', 'bob']]);
    expect(mdclaim(['history', '--since', '1h', '--file', b.location]).stdout.split('\n').length).toBeGreaterThan(6);
    await new Promise((r) => setTimeout(r, 50));
    const none = mdclaim(['history', '--since', '10ms', '--file', b.location]);
    expect([none.status, none.stdout, none.stderr]).toEqual([3, '', 'no history\n']);
  });

  it('exits 3 for an id with no events, and 2 for a bad --since, in one line', async () => {
    const b = made;
    const r = mdclaim(['history', 'NOPE-9', '--file', b.location]);
    expect([r.status, r.stdout, r.stderr]).toEqual([3, '', 'no history for NOPE-9\n']);
    const bad = mdclaim(['history', '--since', 'soon', '--file', b.location]);
    expect([bad.status, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toMatch(/^error\[USAGE\]: --since "soon" is not a duration/);
  });
});

describe('mdclaim history, across the kinds', () => {
  it('is the same on every kind of board, and says when a file board keeps none', () => {
    const names = Object.keys(seen);
    for (const n of names) expect(seen[n]).toEqual(seen[names[0]!]);
    const file = boardFile(BOARD);
    expect(mdclaim(['claim', 'PLAT-1', '--by', 'ann', '--file', file]).status).toBe(0);
    const r = mdclaim(['history', '--file', file]);
    expect([r.status, r.stderr]).toEqual([3, `no history: ${file} keeps none (touch ${file}.history.jsonl to start one)\n`]);
  });
});
