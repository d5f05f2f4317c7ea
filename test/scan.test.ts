import { describe, expect, it } from 'vitest';
import { bytes, toByteString } from '../src/format/bytes.js';
import { scanTasks, TaskScanner } from '../src/format/scan.js';

/** The task line numbers the scanner finds in a document. */
const taskLines = (md: string) => scanTasks(toByteString(md)).map((t) => t.line);

describe('the task-line scanner', () => {
  it('reads a bare ADW line after a heading', () => {
    const md = '## Git Worktree edgecase-tweets\n[✅ df5241b6d, fc290303] Add 25 edge case tweets\n';
    const [t, ...rest] = scanTasks(toByteString(md));
    const start = bytes('## Git Worktree edgecase-tweets\n').length;
    expect(rest).toEqual([]);
    expect(t).toMatchObject({ line: 2, start, markerStart: start, section: 'Git Worktree edgecase-tweets' });
    expect(t!.marker).toMatchObject({ status: 'done', commit: 'df5241b6d', by: 'fc290303', end: start + bytes('[✅ df5241b6d, fc290303]').length });
    expect(t!.end).toBe(toByteString(md).length - 1);
  });

  it('reads tasks in bullet and numbered list items of every kind', () => {
    const md = '- [ ] a\n* [x] b\n+ [⏰] c\n1. [ ] d\n2) [❌, ab12] e\n10.  [🟡, ab12, 2026-11-30T04:06:29Z] f\n';
    const tasks = scanTasks(toByteString(md));
    expect(tasks.map((t) => t.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(tasks.map((t) => t.markerStart - t.start)).toEqual([2, 2, 2, 3, 3, 5]);
    expect(tasks.map((t) => t.marker.status)).toEqual(['open', 'done', 'blocked', 'open', 'failed', 'claimed']);
  });

  it('reads nested list items at any depth, and skips prose in brackets', () => {
    expect(taskLines('- [ ] a\n  - [ ] b\n    - [x] c\n      more text\n  - [link] not a task\n  - [/] nor this\n')).toEqual([1, 2, 3]);
  });

  it('ignores checkboxes inside a backtick fence, whatever its length and info string', () => {
    expect(taskLines('````markdown\n- [ ] in code\n```\n- [ ] still code\n````\n- [ ] live\n')).toEqual([6]);
  });

  it('ignores checkboxes inside a tilde fence', () => {
    expect(taskLines('~~~python\n[ ] in code\n~~~~\n[ ] live\n')).toEqual([4]);
  });

  it('does not open a fence on a backtick line whose info string holds a backtick', () => {
    expect(taskLines('``` a`b\n[ ] live\n')).toEqual([2]);
  });

  it('runs an unclosed fence to the end of its list item, or of the document', () => {
    expect(taskLines('- a\n  ~~~\n  - [ ] code\n- [ ] live\n')).toEqual([4]);
    expect(taskLines('```\n- [ ] code\n\n- [ ] still code')).toEqual([]);
  });

  it('ignores indented code, but not an indented paragraph continuation', () => {
    expect(taskLines('    [ ] code\n\ntext\n    [ ] continuation\n')).toEqual([4]);
  });

  it('counts tabs as 4-column stops', () => {
    // `-\t` puts the content at column 4; `-\t\t` puts indented code after the marker.
    expect(taskLines('-\t[ ] a\n\t- [ ] b\n-\t\t[ ] code\n')).toEqual([1, 2]);
  });

  it('a setext underline turns the paragraph into a heading, not a task', () => {
    const s = new TaskScanner(toByteString('[ ] a\n[ ] b\n---\n[ ] c\n===\n\n[x] d\n'));
    expect(s.next()).toMatchObject({ line: 7, section: '[ ] c' });
    expect(s.next()).toBeNull();
    expect(s.headings.map(({ line, level, text }) => ({ line, level, text }))).toEqual([
      { line: 1, level: 2, text: '[ ] a [ ] b' },
      { line: 4, level: 1, text: '[ ] c' },
    ]);
  });

  it('a thematic break after a blank line makes no heading', () => {
    expect(taskLines('[ ] a\n\n---\n[ ] b\n')).toEqual([1, 4]);
  });

  it('ignores tasks in block quotes at any depth, and lazy lines that continue them', () => {
    expect(taskLines('> - [ ] quoted\n[ ] lazy\n\n> > [x] deep\n\n- > [ ] quoted in an item\n\n[ ] live\n')).toEqual([8]);
  });

  it('hides tasks in HTML comments that span lines', () => {
    expect(taskLines('<!--\n- [ ] hidden\n-->\n- [ ] live\n<!-- one line -->\n- [ ] live too\n')).toEqual([4, 6]);
  });

  it('hides tasks in HTML blocks of each kind until their end', () => {
    expect(taskLines('<div>\n[ ] in div\n\n[ ] after the blank line\n')).toEqual([4]);
    expect(taskLines('<pre>\n\n[ ] in pre\n</pre>\n[ ] after\n')).toEqual([5]);
    expect(taskLines('<?php\n[ ] in\n?>\n<!DOCTYPE html\n[ ] in\n>\n<![CDATA[\n[ ] in\n]]>\n[ ] out\n')).toEqual([10]);
    expect(taskLines('<custom-tag>\n[ ] in\n\n[ ] out\n')).toEqual([4]);
  });

  it('does not let a kind-7 HTML tag interrupt a paragraph', () => {
    expect(taskLines('text\n<span>\n[ ] continuation\n')).toEqual([3]);
  });

  it('reads lazy continuation lines as part of the paragraph', () => {
    expect(taskLines('- [ ] a\ncontinued\n[ ] lazy\n')).toEqual([1, 3]);
  });

  it('lets a list item interrupt a paragraph only as CommonMark allows', () => {
    expect(taskLines('text\n2. [ ] not a list\n')).toEqual([]);
    expect(taskLines('text\n1. [ ] a list\n')).toEqual([2]);
    expect(taskLines('text\n- [ ] a list\n')).toEqual([2]);
    // An empty item cannot interrupt, so `*` and the next line continue the paragraph.
    expect(taskLines('text\n*\n[ ] continuation\n')).toEqual([3]);
    // Not a paragraph (but a new item in a new list) when the item above does not continue.
    expect(taskLines('- a\n2. [ ] b\n')).toEqual([2]);
  });

  it('ends an empty list item at a blank line', () => {
    // Had the second item gone on, the last line would be a paragraph in it, not indented code.
    expect(taskLines('-\n  [ ] in the item\n\n-\n\n    [ ] code\n')).toEqual([2]);
  });

  it('skips YAML front matter, after a BOM too', () => {
    expect(taskLines('---\ntitle: x\n[ ] not a task\n---\n[ ] task\n')).toEqual([5]);
    expect(taskLines('\uFEFF---\r\n[ ] no\r\n...\r\n[ ] yes\r\n')).toEqual([4]);
    // Without a closing line `---` is a thematic break.
    expect(taskLines('---\n[ ] task\n')).toEqual([2]);
  });

  it('keeps link reference definitions out, even their continuation lines', () => {
    expect(taskLines('[a]:\n[x]\n[ ] task\n')).toEqual([3]);
    expect(taskLines('[a]: /u "a title\n[ ] inside the title"\n')).toEqual([]);
    expect(taskLines('[a]: /u\n===\n[ ] continuation\n')).toEqual([3]);
  });

  it('keeps byte offsets exact with emoji and CRLF and a BOM', () => {
    const md = '\uFEFF# Émoji 🎉\r\n- [🟡, ab12, 2026-11-30T04:06:29Z] claim ✨\r\n[ ] bare';
    const src = toByteString(md);
    const [a, b] = scanTasks(src);
    const line2 = 3 + bytes('# Émoji 🎉\r\n').length;
    expect(a).toMatchObject({ line: 2, start: line2, markerStart: line2 + 2, section: 'Émoji 🎉' });
    expect(src.slice(a!.markerStart, a!.marker.end)).toBe(bytes('[🟡, ab12, 2026-11-30T04:06:29Z]'));
    expect(src.slice(a!.end, a!.end + 2)).toBe('\r\n');
    expect(b).toMatchObject({ line: 3, start: a!.end + 2, markerStart: a!.end + 2, end: src.length });
  });

  it('treats a lone CR as a line ending', () => {
    expect(taskLines('# h\r[ ] a\r\r[x] b')).toEqual([2, 4]);
  });

  it('reads a last line without a line ending', () => {
    expect(scanTasks(toByteString('text\n\n[ ] last'))).toMatchObject([{ line: 3, start: 6, end: 14 }]);
  });

  it('names the section by the nearest heading, trimmed and without closing #s', () => {
    const md = '[ ] none\n\n#  Alpha  ##  \n[ ] a\n> # Quoted\n\n[ ] b\n### C# ###\n[ ] c\n#\n[ ] d\n';
    expect(scanTasks(toByteString(md)).map((t) => t.section)).toEqual([undefined, 'Alpha', 'Alpha', 'C#', '']);
  });

  it('records each heading outside block quotes with its place', () => {
    const s = new TaskScanner(toByteString('# One #\n\n- ## Two\n> # Quoted\n\nThree\n-----\n'));
    while (s.next());
    expect(s.headings).toEqual([
      { line: 1, start: 0, end: 7, level: 1, text: 'One' },
      { line: 3, start: 9, end: 17, level: 2, text: 'Two' },
      { line: 6, start: 30, end: 41, level: 2, text: 'Three' },
    ]);
  });

  it('hands out tasks as it goes, reading only to the end of the paragraph', () => {
    const s = new TaskScanner(toByteString('# A\n[ ] a\n[ ] b\n\n# B\n[ ] c\n'));
    expect(s.next()).toMatchObject({ line: 2, section: 'A' });
    expect(s.headings.map((h) => h.text)).toEqual(['A']);
    expect(s.next()).toMatchObject({ line: 3 });
    expect(s.next()).toMatchObject({ line: 6, section: 'B' });
    expect(s.next()).toBeNull();
    expect(s.next()).toBeNull();
  });

  it('finds nothing in an empty document', () => {
    expect(taskLines('')).toEqual([]);
    expect(taskLines('\n\n')).toEqual([]);
  });
});
