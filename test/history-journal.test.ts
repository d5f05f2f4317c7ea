import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard, parseTasks } from '../src/index.js';
import { appendJournal, readJournal } from '../src/storage/journal.js';
import { CLI, mdclaim } from './helpers/cli.js';
import { fixture, start } from './helpers/procs.js';
import { boardFile } from './helpers/tmp.js';

// A file board's journal: kept where it exists, whole lines only however
// many processes claim at once, never in the way of a claim, bounded.

const BOARD = '# Work\n\n- [ ] PLAT-1 Add login\n- [ ] Write the guide\n';
const journalOf = (file: string) => `${file}.history.jsonl`;

describe('the journal', () => {
  it('holds whole lines only when claimers in many processes write at once, lines longer than a pipe buffer too', async () => {
    // Each line of the journal is over 4 KiB (PIPE_BUF): its wholeness comes from the board's lock and one write(2) on O_APPEND.
    const tasks = Array.from({ length: 40 }, (_, i) => `- [ ] task ${i} ${'x'.repeat(5000)}`);
    const file = boardFile(`# Work\n\n${tasks.join('\n')}\n`);
    writeFileSync(journalOf(file), '');
    const runs = await Promise.all(['a', 'b', 'c', 'd'].map((by) => start(fixture('claim-loop.mjs'), [file, by]).done));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const text = readFileSync(journalOf(file), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(80);
    const events = lines.map((l) => JSON.parse(l) as { event: string; text: string; by: string });
    for (const t of parseTasks(readFileSync(file, 'utf8'))) {
      const mine = events.filter((e) => e.text === t.text);
      expect(mine.map((e) => e.event)).toEqual(['claimed', 'done']);
      expect(mine[1]!.by).toBe(mine[0]!.by);
    }
  }, 120_000);

  it('that cannot be written (its path is a directory) fails no claim: one warning line on stderr, the claim stands', async () => {
    const file = boardFile(BOARD);
    mkdirSync(journalOf(file));
    const r = mdclaim(['next', '--by', 'a', '--file', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^claimed PLAT-1 /);
    expect(r.stderr).toMatch(/^warning: \S+tasks\.md\.history\.jsonl: .+; the change to the board stands, its history line is lost\n$/);
    expect(parseTasks(readFileSync(file, 'utf8'))[0]).toMatchObject({ status: 'claimed', by: 'a' });
    // The library tells its caller, once per change.
    const warned: string[] = [];
    const board = openBoard(file, { onWarning: (m) => warned.push(m) });
    expect(await board.done('PLAT-1', { by: 'a' })).toMatchObject({ status: 'done' });
    expect(warned).toHaveLength(1);
    await board.close();
  });

  it('that a file size limit cuts short fails no claim, and keeps no part of a line', () => {
    const file = boardFile(BOARD);
    // Whole lines up to nearly 4096 bytes, the limit (ulimit -f counts 1024-byte blocks): the next line goes past it.
    const line = `${JSON.stringify({ at: '2026-01-01T00:00:00.000Z', event: 'added', id: 'x', text: 'p'.repeat(59) })}\n`;
    writeFileSync(journalOf(file), line.repeat(Math.floor(4000 / line.length)));
    const before = readFileSync(journalOf(file));
    expect(before.length).toBeGreaterThan(3900);
    const r = spawnSync('bash', ['-c', 'ulimit -f 4; exec "$0" "$@"', process.execPath, CLI, 'next', '--by', 'a', '--file', file], { encoding: 'utf8' });
    expect([r.status, r.stdout.startsWith('claimed PLAT-1 ')]).toEqual([0, true]);
    expect(r.stderr).toMatch(/^warning: \S+: wrote \d+ of \d+ bytes; the change to the board stands, its history line is lost\n$/);
    expect(readFileSync(journalOf(file)).equals(before)).toBe(true);
    expect(parseTasks(readFileSync(file, 'utf8'))[0]).toMatchObject({ status: 'claimed', by: 'a' });
  });

  it('is not made where none exists, and is left alone with history: false or MDCLAIM_HISTORY=off; keepsHistory says which', async () => {
    const file = boardFile(BOARD);
    const board = openBoard(file);
    await board.claim('PLAT-1', { by: 'a' });
    expect(existsSync(journalOf(file))).toBe(false);
    expect(board.keepsHistory).toBe(false);
    expect(await board.history()).toEqual([]);
    writeFileSync(journalOf(file), '');
    expect(board.keepsHistory).toBe(true);
    expect(openBoard(file, { history: false }).keepsHistory).toBe(false);
    await openBoard(file, { history: false }).done('PLAT-1', { by: 'a' });
    expect(mdclaim(['reopen', 'PLAT-1', '--file', file], { MDCLAIM_HISTORY: 'off' }).status).toBe(0);
    expect(readFileSync(journalOf(file), 'utf8')).toBe('');
    await board.claim('PLAT-1', { by: 'b' });
    expect((await board.history()).map((e) => [e.event, e.id, e.by])).toEqual([['claimed', 'PLAT-1', 'b']]);
    await board.close();
  });

  it('records what an edit changed: a marker typed by hand, a task deleted, a text changed, a task added', async () => {
    const file = boardFile('# Work\n\n- [ ] PLAT-1 Add login\n- [ ] Write the guide\n- [ ] Tidy up\n');
    writeFileSync(journalOf(file), '');
    const board = openBoard(file);
    await board.claim('PLAT-1', { by: 'a' });
    const snapshot = await board.snapshot();
    const mine = snapshot.toString().replace(/\[🟡[^\]]*\]/, '[x]').replace('- [ ] Write the guide\n', '').replace('Tidy up', 'Tidy up the docs') + '- [ ] PLAT-9 New\n';
    expect(await board.applyEdit(snapshot, mine)).toMatchObject({ merged: true, changed: true });
    const events = (await board.history()).map((e) => [e.event, e.text, e.by ?? null, e.via]);
    expect(events).toEqual([
      ['claimed', 'PLAT-1 Add login', 'a', 'claim'],
      ['done', 'PLAT-1 Add login', 'a', 'edit'],
      ['added', 'Tidy up the docs', null, 'edit'],
      ['added', 'PLAT-9 New', null, 'edit'],
      ['removed', 'Write the guide', null, 'edit'],
      ['removed', 'Tidy up', null, 'edit'],
    ]);
    await board.close();
  });

  it('is made by init, and not with --no-history', () => {
    const dir = dirname(boardFile(''));
    expect(mdclaim(['init', '--file', join(dir, 'a.md')]).status).toBe(0);
    expect(readFileSync(join(dir, 'a.md.history.jsonl'), 'utf8')).toBe('');
    expect(mdclaim(['init', '--no-history', '--file', join(dir, 'b.md')]).status).toBe(0);
    expect(existsSync(join(dir, 'b.md.history.jsonl'))).toBe(false);
  });

  it('stays bounded: past its cap it becomes .1 (the older .1 dropped), and reads back whole, oldest first', () => {
    const path = journalOf(boardFile(''));
    writeFileSync(path, '');
    const cap = 1000;
    for (let i = 0; i < 100; i++) expect(appendJournal(path, [JSON.stringify({ i, pad: 'p'.repeat(40) })], cap)).toBeNull();
    expect(statSync(path).size).toBeLessThanOrEqual(cap);
    expect(statSync(`${path}.1`).size).toBeLessThanOrEqual(cap);
    const kept = readJournal(path).map((l) => (JSON.parse(l) as { i: number }).i);
    expect(kept.at(-1)).toBe(99);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => 100 - kept.length + k));
    expect(kept.length).toBeGreaterThan(10);
  });
});
