import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const KEYED = '## Plan\n- [ ] PLAT-1 design\n\n## Build\n- [ ] PLAT-1 backend\n- [ ] PLAT-1 frontend\n';


describe('ids stay with their lines', () => {
  it('keeps every id when a task with the same key is added above, and done reaches the line the runner holds (CLI)', () => {
    const file = boardFile(KEYED);
    const ids = () => (JSON.parse(mdclaim(['list', '--file', file, '--json']).stdout) as { tasks: { id: string; text: string }[] }).tasks;
    const before = ids();
    const frontend = before.find((t) => t.text === 'PLAT-1 frontend')!;
    expect(frontend.id).toMatch(/^[0-9a-f]{12}$/);
    expect(mdclaim(['claim', frontend.id, '--file', file, '--by', 'runner']).status).toBe(0);
    expect(mdclaim(['add', 'PLAT-1 spec', '--section', 'Plan', '--file', file]).status).toBe(0);
    // The line added above moves nothing's id.
    const after = ids();
    for (const t of before) expect(after.find((u) => u.text === t.text)!.id).toBe(t.id);
    // The key is on four lines: a holder operation by key finds the runner's own.
    const done = mdclaim(['done', 'PLAT-1', '--file', file, '--by', 'runner']);
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    expect(read(file)).toBe('## Plan\n- [ ] PLAT-1 design\n- [ ] PLAT-1 spec\n\n## Build\n- [ ] PLAT-1 backend\n- [✅, runner] PLAT-1 frontend\n');
  });

  it('refuses to claim by a key that is on several tasks, as a usage error (exit 2) listing the ids, and writes nothing', () => {
    const file = boardFile(KEYED);
    const before = bytesOf(file);
    const r = mdclaim(['claim', 'PLAT-1', '--file', file, '--by', 'w']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error\[USAGE\]: PLAT-1 is on 3 tasks, so it is not an id: use one of [0-9a-f]{12} "PLAT-1[^"]*" \(line 2\), [0-9a-f]{12} "PLAT-1[^"]*" \(line 5\), [0-9a-f]{12} "PLAT-1[^"]*" \(line 6\)\n$/);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('uses a key as the id while it names one task, and the text hash once it names several', async () => {
    const board = openBoard(boardFile('- [ ] PLAT-1 design\n- [ ] PLAT-2 other\n'));
    const [one] = await board.list();
    expect(one!.id).toBe('PLAT-1');
    await board.add('PLAT-1 backend');
    const [shared, , added] = await board.list();
    expect(shared!.id).toMatch(/^[0-9a-f]{12}$/);
    expect(added!.id).toMatch(/^[0-9a-f]{12}$/);
    expect(added!.id).not.toBe(shared!.id);
  });

  it('finds a keyed task by the hash it had while its key was shared, once the key is unique again', async () => {
    const file = boardFile('- [ ] PLAT-1 design\n- [ ] PLAT-1 backend\n');
    const board = openBoard(file);
    const backend = (await board.list())[1]!;
    const held = await board.claim(backend.id, { by: 'w' });
    expect(held.text).toBe('PLAT-1 backend');
    // Someone deletes the other PLAT-1 line by hand: backend's id is the key now, and its old id still reaches it.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, read(file).replace('- [ ] PLAT-1 design\n', ''));
    expect((await board.list())[0]!.id).toBe('PLAT-1');
    expect(await board.done(backend.id, { by: 'w' })).toMatchObject({ id: 'PLAT-1', status: 'done' });
  });

  it('claims the first claimable of exact duplicates, and each holder reaches the one it holds', async () => {
    const file = boardFile('- [ ] same\n- [ ] same\n- [ ] same\n');
    const board = openBoard(file, { now: () => Date.parse('2026-11-30T05:00:00Z') });
    const id = (await board.list())[0]!.id;
    expect(await board.claim(id, { by: 'w1' })).toMatchObject({ id, line: 1 });
    expect(await board.claim(id, { by: 'w2' })).toMatchObject({ id, line: 2 });
    expect(await board.done(id, { by: 'w2' })).toMatchObject({ line: 2, status: 'done' });
    expect(await board.release(id, { by: 'w1' })).toMatchObject({ line: 1, status: 'open' });
    expect(read(file)).toBe('- [ ] same\n- [✅, w2] same\n- [ ] same\n');
    // A third claimant holds none of them: CONFLICT, naming no one it does not mean.
    await board.claim(id, { by: 'w1' });
    expect(await errorOf(board.heartbeat(id, { by: 'w9' }))).toMatchObject({ code: 'CONFLICT', holder: 'w1' });
  });

  it('refuses a holder operation by key when the caller holds several different tasks with that key', async () => {
    const file = boardFile(KEYED);
    const board = openBoard(file);
    const tasks = await board.list();
    await board.claim(tasks[1]!.id, { by: 'w' });
    await board.claim(tasks[2]!.id, { by: 'w' });
    const before = bytesOf(file);
    expect(await errorOf(board.done('PLAT-1', { by: 'w' }))).toMatchObject({ code: 'USAGE' });
    expect(await errorOf(board.done('PLAT-1', { by: 'other' }))).toMatchObject({ code: 'CONFLICT', holder: 'w' });
    expect(await errorOf(board.done('PLAT-1-2', { by: 'w' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(bytesOf(file).equals(before)).toBe(true);
  });
});
