import { MdclaimError, usage } from '../errors.js';
import { bytes, type ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { TaskScanner, type Heading } from '../format/scan.js';
import { sectionName } from '../format/section.js';
import { toTask, type Task } from '../format/task.js';
import { applyEdits, checkReading, lineAt } from './check-reading.js';
import { sectionMatches, worktreeOf } from '../format/worktree-section.js';
import { openForm } from './open-form.js';
import type { Plan } from './plan.js';
import { textRefusal } from './unclaimable.js';
import { KeyCount, walk, type Seen } from './walk.js';

/**
 * Append an open task: after the last task of the section (or of the file)
 * and the lines that belong to it (its detail lines, a paragraph it runs on
 * into), in the style of the task it follows (list marker, indentation,
 * numbering, line ending). In a section without tasks it goes after the
 * section's last line; a section that does not exist yet is created at the end.
 * Its marker is the board's open form (see openForm).
 */
export function add(src: ByteString, text: string, named?: string): Plan<Task> {
  const section = named === undefined ? undefined : sectionOf(named);
  const clean = text.trim();
  if (clean === '') throw usage('the task text is empty');
  if (/[\r\n\u2028\u2029]/.test(clean)) throw usage('the task text must be one line');
  // A task nobody could claim is refused before it is written.
  const refused = textRefusal(clean);
  if (refused !== null) throw usage(`the task ${refused}`);

  const scanner = new TaskScanner(src);
  const all: Seen[] = [];
  walk(src, (s) => void all.push(s), scanner);
  const inSection = section === undefined ? all : all.filter((s) => sectionMatches(s.t.section, section));
  const model = (inSection.at(-1) ?? all.at(-1))?.t;
  const eol = lineEnding(src, model?.end);
  const prefix = prefixFor(src, model, inSection.length === 0);
  // The open marker of the section it joins, else the board's (a new section has no tasks of its own).
  const line = prefix + openForm(src, inSection.length > 0 ? model!.section : null) + ' ' + clean;
  const starts = new Set(all.map((s) => s.t.start));
  const headingAt = new Map(scanner.headings.map((h) => [h.start, h]));

  let at: number;
  let heading = '';
  if (inSection.length > 0) {
    at = afterLine(src, blockEnd(src, inSection.at(-1)!.t, starts, headingAt));
  } else if (section !== undefined) {
    const found = scanner.headings.find((h) => sectionMatches(h.text, section));
    at = found ? sectionEnd(src, found, scanner.headings) : src.length;
    if (!found) heading = bytes(`## ${worktreeHeading(scanner.headings, section)}`) + eol + eol;
  } else {
    at = all.length > 0 ? afterLine(src, blockEnd(src, all.at(-1)!.t, starts, headingAt)) : src.length;
  }
  // Finish an unterminated last line; set a new heading apart from what precedes it.
  let head = at > 0 && at === src.length && !/[\r\n]$/.test(src) ? eol : '';
  if (heading !== '') head += (at > 0 ? eol : '') + heading;
  // A line without a list marker after prose would run on into that paragraph: set it apart.
  const before = heading === '' ? previousLine(src, at) : null;
  const runsOn = before !== null && !isBlankLine(src, before) && !starts.has(before) && !headingAt.has(before) && !/^\s*(?:[-*+]|\d{1,9}[.)])\s/.test(prefix);
  // Before prose (or a setext title or underline) that the new line's paragraph would take in, end that paragraph.
  const following = at < src.length && !isBlankLine(src, at) ? src.slice(at, lineEndAt(src, at)) : null;
  const tail = following !== null && (!startsBlock(following) || /^\s{0,3}(?:=+|-+)\s*$/.test(following)) ? eol : '';
  const gaps = runsOn ? [eol] : ['', eol];
  let refusal: unknown;
  for (const gap of gaps) {
    const edit: Edit = { start: at, end: at, bytes: head + gap + bytes(line) + eol + tail };
    const next = applyEdits(src, [edit]);
    const lineNo = lineAt(next, at + head.length + gap.length);
    try {
      checkReading(src, { edits: [edit], result: null, changes: [], added: { line: lineNo, text: clean } });
    } catch (err) {
      refusal = err;
      continue;
    }
    return { edits: [edit], result: addedTask(next, lineNo), changes: [], added: { line: lineNo, text: clean } };
  }
  throw refusal instanceof MdclaimError ? new MdclaimError('USAGE', `cannot add "${clean}" there: ${refusal.message}`) : refusal;
}

/**
 * The heading text of a new section: as named when it names a worktree
 * itself (`Git Worktree kill`, `Worktree: web`), else in the form of the
 * board's first worktree heading when it has one (`Worktree: ` + name), else the name.
 */
function worktreeHeading(headings: readonly Heading[], section: string): string {
  if (worktreeOf(section) !== undefined) return section;
  for (const h of headings) {
    const name = worktreeOf(h.text);
    if (name !== undefined) return h.text.slice(0, h.text.lastIndexOf(name)) + section;
  }
  return section;
}

/** The section as its heading reads back (see sectionName): one line, not empty. */
function sectionOf(named: string): string {
  const section = typeof named === 'string' && !/[\r\n]/.test(named) ? sectionName(named) : '';
  if (section === '') throw usage('the section must be one non-empty line');
  return section;
}

function addedTask(next: ByteString, lineNo: number): Task {
  const keys = new KeyCount();
  let mine: Seen | null = null;
  walk(next, (s) => {
    keys.add(next, s);
    if (s.t.line === lineNo) mine = s;
  });
  return toTask(next, mine!.t, keys.idOf(next, mine!));
}

/**
 * The end of the last line that belongs to a task: lines that continue its
 * paragraph (lazily or not) and, for a list item, lines indented to its
 * content after a blank line. It stops at the next task, heading or block start.
 */
function blockEnd(src: ByteString, task: { start: number; end: number; markerStart: number }, starts: Set<number>, headings: Map<number, Heading>): number {
  const col = task.markerStart - task.start;
  const listItem = /[-*+.)]\s*$/.test(src.slice(task.start, task.markerStart));
  let last = task.end;
  let sawBlank = false;
  for (let pos = afterLine(src, task.end); pos < src.length; ) {
    const end = lineEndAt(src, pos);
    if (starts.has(pos) || headings.has(pos)) break;
    if (isBlankLine(src, pos)) sawBlank = true;
    else {
      const indent = indentOf(src, pos, end);
      const belongs = sawBlank ? listItem && indent >= col : indent >= col || !startsBlock(src.slice(pos, end));
      if (!belongs) break;
      last = end;
      sawBlank = false;
    }
    if (end >= src.length) break;
    pos = afterLine(src, end);
  }
  return last;
}

/** Where a section's content ends: after its last non-blank line before the next heading (or the end). */
function sectionEnd(src: ByteString, h: Heading, headings: readonly Heading[]): number {
  const nextHeading = headings.find((o) => o.start > h.start)?.start ?? src.length;
  let at = afterLine(src, h.end);
  for (let pos = at; pos < nextHeading; ) {
    const end = lineEndAt(src, pos);
    if (!isBlankLine(src, pos)) at = afterLine(src, end);
    if (end >= src.length) break;
    pos = afterLine(src, end);
  }
  return at;
}

// What may start a block instead of running on as a paragraph's lazy line.
const BLOCK_START = /^\s{0,3}(?:[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|<|(?:[-*_]\s*){3,}$|=+\s*$)/;

function startsBlock(line: string): boolean {
  return BLOCK_START.test(line);
}

function indentOf(src: ByteString, pos: number, end: number): number {
  let col = 0;
  for (let i = pos; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x20) col++;
    else if (c === 0x09) col += 4 - (col % 4);
    else break;
  }
  return col;
}

function isBlankLine(src: ByteString, pos: number): boolean {
  for (let i = pos; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

function lineEndAt(src: ByteString, pos: number): number {
  let i = pos;
  while (i < src.length && src.charCodeAt(i) !== 0x0a && src.charCodeAt(i) !== 0x0d) i++;
  return i;
}

/** Start of the line before offset `at` (which starts a line), or null at the top. */
function previousLine(src: ByteString, at: number): number | null {
  if (at === 0) return null;
  let i = at - 1;
  if (src.charCodeAt(i) === 0x0a && src.charCodeAt(i - 1) === 0x0d) i--;
  if (at === src.length && !/[\r\n]$/.test(src)) i = at; // the last line has no ending
  while (i > 0 && src.charCodeAt(i - 1) !== 0x0a && src.charCodeAt(i - 1) !== 0x0d) i--;
  return i;
}

function afterLine(src: ByteString, end: number): number {
  if (src.charCodeAt(end) === 0x0d && src.charCodeAt(end + 1) === 0x0a) return end + 2;
  if (end < src.length) return end + 1;
  return end;
}

/** The line ending of the task the new one follows, else the file's first, else `\n`. */
function lineEnding(src: ByteString, end: number | undefined): string {
  if (end !== undefined && end < src.length) {
    if (src.charCodeAt(end) === 0x0a) return '\n';
    return src.charCodeAt(end + 1) === 0x0a ? '\r\n' : '\r';
  }
  const lf = src.indexOf('\n');
  return lf > 0 && src.charCodeAt(lf - 1) === 0x0d ? '\r\n' : '\n';
}

/** The bytes before the model's marker (`- `, `  * `, `3. `): an ordered list counts on, or starts at 1 in a new list. */
function prefixFor(src: ByteString, model: { start: number; markerStart: number } | undefined, newList: boolean): string {
  if (!model) return '- ';
  const prefix = src.slice(model.start, model.markerStart);
  const ordered = /^(\s*)(\d+)([.)]\s+)$/.exec(prefix);
  if (ordered) return `${ordered[1]}${newList ? 1 : Number(ordered[2]) + 1}${ordered[3]}`;
  // A lazy or continuation line carries no list marker: copy only its indentation.
  return /^\s*([-*+]\s+)?$/.test(prefix) ? prefix : prefix.replace(/\S.*$/, '');
}
