import { toByteString } from '../../src/format/bytes.js';
import { parseMarker } from '../../src/format/marker.js';

/**
 * The slow, obviously-right reading of the task-line rule, built on remark
 * (plain CommonMark). Tests hold the fast scanner to it; it lives with the
 * tests so that remark stays a devDependency and out of the package.
 */

export interface ReferenceTask {
  /** 1-based line number. */
  line: number;
  /** The paragraph's content on that line (UTF-8 text, up to the line ending). */
  content: string;
}

export interface ReferenceResult {
  tasks: ReferenceTask[];
  /** Lines where a heading outside block quotes starts (its first line for setext). */
  headings: number[];
}

interface Node {
  type: string;
  children?: Node[];
  position?: { start: { line: number; offset?: number }; end: { line: number } };
}

const LINE_END = /\r\n|\r|\n/g;

/** Line starts and ends (before the line ending) of a text, as remark counts lines. */
function splitLines(text: string): Array<{ start: number; end: number; next: number }> {
  const lines: Array<{ start: number; end: number; next: number }> = [];
  let start = 0;
  for (const m of text.matchAll(LINE_END)) {
    lines.push({ start, end: m.index, next: m.index + m[0].length });
    start = m.index + m[0].length;
  }
  lines.push({ start, end: text.length, next: text.length });
  return lines;
}

/** Replace YAML front matter (`---` … `---`/`...` at the very top) with empty lines. */
function blankFrontMatter(text: string): string {
  const lines = splitLines(text);
  const line = (i: number) => text.slice(lines[i]!.start, lines[i]!.end);
  if (lines.length < 2 || line(0) !== '---') return text;
  for (let i = 1; i < lines.length; i++) {
    const l = line(i);
    if (l !== '---' && l !== '...') continue;
    // Keep every line ending so remark's line numbers stay the file's.
    let out = '';
    for (let j = 0; j <= i; j++) out += text.slice(lines[j]!.end, lines[j]!.next);
    return out + text.slice(lines[i]!.next);
  }
  return text;
}

/** Every task line of a document (given as decoded text) and every heading line, per remark. */
export async function referenceScan(text: string): Promise<ReferenceResult> {
  const { unified } = await import('unified');
  const { default: remarkParse } = await import('remark-parse');
  // remark drops a BOM itself; dropping it here keeps offsets and front matter simple.
  const body = blankFrontMatter(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const tree = unified().use(remarkParse).parse(body) as Node;
  const lines = splitLines(body);
  const tasks: ReferenceTask[] = [];
  const headings: number[] = [];

  const visit = (node: Node, inQuote: boolean): void => {
    if (node.type === 'blockquote') inQuote = true;
    // A setext heading's position takes in the definitions before it; its text's does not.
    if (node.type === 'heading' && !inQuote) headings.push((node.children?.[0] ?? node).position!.start.line);
    if (node.type === 'paragraph' && !inQuote) {
      const { start, end } = node.position!;
      for (let n = start.line; n <= end.line; n++) {
        const l = lines[n - 1]!;
        const content = n === start.line ? body.slice(start.offset!, l.end) : body.slice(l.start, l.end).replace(/^[ \t]+/, '');
        if (parseMarker(toByteString(content), 0)) tasks.push({ line: n, content });
      }
    }
    for (const child of node.children ?? []) visit(child, inQuote);
  };
  visit(tree, false);
  tasks.sort((a, b) => a.line - b.line);
  return { tasks, headings };
}

/** The task lines of a document per remark: line numbers and the content each starts with. */
export async function referenceTaskLines(text: string): Promise<ReferenceTask[]> {
  return (await referenceScan(text)).tasks;
}
