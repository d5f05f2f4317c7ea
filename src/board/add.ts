import { MdclaimError, usage } from '../errors.js';
import { bytes, type ByteString } from '../format/bytes.js';
import type { Edit } from '../format/edit.js';
import { TaskScanner, type TaskLine } from '../format/scan.js';
import type { Task } from '../format/task.js';
import type { Change } from '../storage/file-store.js';
import { sectionMatches } from './claim.js';
import { listTasks } from './walk.js';

/**
 * Append an open task: after the last task of the section (or of the file),
 * in the style of the task it follows (list marker, indentation, numbering,
 * line ending). A section that does not exist yet is created at the end.
 */
export function add(src: ByteString, text: string, section?: string): Change<Task> {
  const clean = text.trim();
  if (clean === '') throw usage('the task text is empty');
  if (/[\r\n]/.test(clean)) throw usage('the task text must be one line');
  if (section !== undefined && (section.trim() === '' || /[\r\n]/.test(section))) throw usage('the section must be one non-empty line');

  const scanner = new TaskScanner(src);
  const all: TaskLine[] = [];
  for (let t = scanner.next(); t; t = scanner.next()) all.push(t);
  const inSection = section === undefined ? all : all.filter((t) => sectionMatches(t.section, section));
  const model = inSection.at(-1) ?? all.at(-1);
  const eol = lineEnding(src, model);
  const line = prefixFor(src, model, inSection.length === 0) + '[ ] ' + clean;

  let at: number;
  let heading = '';
  if (inSection.length > 0) {
    at = afterLine(src, inSection.at(-1)!.end);
  } else if (section !== undefined) {
    const found = scanner.headings.find((h) => sectionMatches(h.text, section));
    at = found ? afterLine(src, found.end) : src.length;
    if (!found) {
      const worktrees = scanner.headings.some((h) => h.text.startsWith('Git Worktree '));
      heading = bytes(`## ${worktrees ? 'Git Worktree ' : ''}${section}`) + eol + eol;
    }
  } else {
    at = all.length > 0 ? afterLine(src, all.at(-1)!.end) : src.length;
  }
  // Finish an unterminated last line; set a new heading apart from what precedes it.
  let head = at > 0 && at === src.length && !/[\r\n]$/.test(src) ? eol : '';
  if (heading !== '') head += (at > 0 ? eol : '') + heading;
  // If the line would be swallowed by what precedes it (an HTML block, say), set it apart with a blank line.
  for (const gap of ['', eol]) {
    const edit: Edit = { start: at, end: at, bytes: head + gap + bytes(line) + eol };
    const next = src.slice(0, at) + edit.bytes + src.slice(at);
    const lineNo = lineNumberAt(next, at + head.length + gap.length);
    const task = listTasks(next).find((t) => t.line === lineNo);
    if (task && task.status === 'open') return { edits: [edit], result: task };
  }
  throw new MdclaimError('USAGE', `cannot add "${clean}" there: it would not read as a task`);
}

function afterLine(src: ByteString, end: number): number {
  if (src.charCodeAt(end) === 0x0d && src.charCodeAt(end + 1) === 0x0a) return end + 2;
  if (end < src.length) return end + 1;
  return end;
}

/** The line ending of the task the new one follows, else the file's first, else `\n`. */
function lineEnding(src: ByteString, model: TaskLine | undefined): string {
  if (model && model.end < src.length) {
    if (src.charCodeAt(model.end) === 0x0a) return '\n';
    return src.charCodeAt(model.end + 1) === 0x0a ? '\r\n' : '\r';
  }
  const lf = src.indexOf('\n');
  return lf > 0 && src.charCodeAt(lf - 1) === 0x0d ? '\r\n' : '\n';
}

/** The bytes before the model's marker (`- `, `  * `, `3. `): an ordered list counts on, or starts at 1 in a new list. */
function prefixFor(src: ByteString, model: TaskLine | undefined, newList: boolean): string {
  if (!model) return '- ';
  const prefix = src.slice(model.start, model.markerStart);
  const ordered = /^(\s*)(\d+)([.)]\s+)$/.exec(prefix);
  if (ordered) return `${ordered[1]}${newList ? 1 : Number(ordered[2]) + 1}${ordered[3]}`;
  // A lazy or continuation line carries no list marker: copy only its indentation.
  return /^\s*([-*+]\s+)?$/.test(prefix) ? prefix : prefix.replace(/\S.*$/, '');
}

function lineNumberAt(src: ByteString, offset: number): number {
  let n = 1;
  for (let i = src.indexOf('\n'); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) n++;
  return n;
}
