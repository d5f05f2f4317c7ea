import { describe, expect, it } from 'vitest';
import { checkReading } from '../src/board/check-reading.js';
import { walk } from '../src/board/walk.js';
import { toByteString } from '../src/format/bytes.js';
import { openBoard, parseTasks } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';


describe('every edit keeps the reading as meant', () => {
  it('refuses a fail reason that would close an unclosed link title above and swallow the task, leaving the file as it was', async () => {
    const file = boardFile('[foo]: /url "title\n[🟡, w, 2026-11-30T04:06:29Z] task\n');
    const board = openBoard(file);
    const [task] = await board.list();
    const before = bytesOf(file);
    const err = await errorOf(board.fail(task!.id, { by: 'w', reason: 'tests broke"' }));
    expect(err.code).toBe('USAGE');
    expect(err.message).toMatch(/line 2/);
    expect(bytesOf(file).equals(before)).toBe(true);
    // A reason that does not end the title is written.
    expect(await board.fail(task!.id, { by: 'w', reason: 'broke' })).toMatchObject({ status: 'failed', reason: 'broke' });
  });

  it('refuses the same through the CLI with exit 2', () => {
    const file = boardFile('[foo]: /url "title\n[🟡, w, 2026-11-30T04:06:29Z] task\n');
    const id = parseTasks(read(file))[0]!.id;
    const before = bytesOf(file);
    const r = mdclaim(['fail', id, '--file', file, '--by', 'w', '--reason', 'x"']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error\[USAGE\]: refusing to write line 2: .*\n$/);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('refuses a fail whose text holds the reason separator, which would split the text', async () => {
    const file = boardFile('- [🟡, w, 2026-11-30T04:06:29Z] parse a // Failed: b\n');
    const board = openBoard(file);
    const before = bytesOf(file);
    expect((await errorOf(board.fail((await board.list())[0]!.id, { by: 'w', reason: 'c' }))).code).toBe('USAGE');
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('adds after a task and its indented detail lines, not between them', async () => {
    const file = boardFile('## S\n- [ ] one\n  detail of one\n\n  more about one\n\nprose after\n');
    await openBoard(file).add('two', { section: 'S' });
    expect(read(file)).toBe('## S\n- [ ] one\n  detail of one\n\n  more about one\n- [ ] two\n\nprose after\n');
  });

  it('adds after a lazy continuation line of the last task, not into it', async () => {
    const file = boardFile('## S\n- [ ] one\nstill one\n');
    await openBoard(file).add('two', { section: 'S' });
    expect(read(file)).toBe('## S\n- [ ] one\nstill one\n- [ ] two\n');
  });

  it("adds to a section without tasks after its prose, set apart, not as the prose's continuation", async () => {
    const file = boardFile('## Notes\nSome prose\nthat goes on.\n\n## Next\n- [ ] x\n');
    await openBoard(file).add('new', { section: 'Notes' });
    expect(read(file)).toBe('## Notes\nSome prose\nthat goes on.\n- [ ] new\n\n## Next\n- [ ] x\n');
    expect((await openBoard(file).list()).map((t) => [t.text, t.line])).toEqual([['new', 4], ['x', 7]]);
  });

  it('sets a bare ADW line apart from prose it would run on into', async () => {
    const file = boardFile('## S\n[] one\n  detail\n');
    await openBoard(file).add('two', { section: 'S' });
    expect(read(file)).toBe('## S\n[] one\n  detail\n\n[] two\n');
    expect((await openBoard(file).list()).map((t) => t.text)).toEqual(['one', 'two']);
  });

  it('adds before a setext heading without making the new line its title', async () => {
    const file = boardFile('## S\nprose\n\nTitle\n=====\n');
    const t = await openBoard(file).add('new', { section: 'S' });
    expect(t).toMatchObject({ text: 'new', section: 'S' });
    expect((await openBoard(file).list()).map((x) => x.text)).toEqual(['new']);
  });

  it('reads a marker with nothing after it as no task, as GFM does', () => {
    expect(parseTasks('- [ ]\n- [x]   \n[ ]\n- [ ] real\n').map((t) => t.text)).toEqual(['real']);
  });

  it('is a check that can fail: a plan whose bytes drop a task is refused', () => {
    const src = toByteString('- [ ] a\n- [ ] b\n');
    const seen = walk(src, () => true)!;
    // Claims to reopen line 1, but the bytes make it no task at all.
    expect(() => checkReading(src, { edits: [{ start: 2, end: 7, bytes: 'nope ' }], result: null, changes: [{ seen, want: { status: 'open', text: 'a' } }] })).toThrow(
      expect.objectContaining({ code: 'USAGE' }),
    );
    // A marker swap read back as another status than planned (the line-only re-read).
    expect(() => checkReading(src, { edits: [{ start: 2, end: 5, bytes: '[x]' }], result: null, changes: [{ seen, want: { status: 'open', text: 'a' } }] })).toThrow(
      expect.objectContaining({ code: 'USAGE' }),
    );
    // And one that changes another task than it says.
    expect(() => checkReading(src, { edits: [{ start: 10, end: 13, bytes: '[x]' }], result: null, changes: [] })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
