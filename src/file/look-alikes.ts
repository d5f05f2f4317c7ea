import { bytes } from '../format/bytes.js';
import { readDuration } from '../format/duration.js';
import { parseMarker } from '../format/marker.js';
import { RFC3339 } from '../format/marker-fields.js';
import type { Task } from '../format/task.js';

/**
 * A line that starts as a task line does, bare or as a list item: a bracket
 * that is empty, `[ ]` or `[x]`, or holds a status sign or fields after a comma.
 */
const LOOKS_LIKE = /^([ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(\[(?:[ xX]?|[^\]\n]*(?:⏰|🟡|✅|❌|,)[^\]\n]*)\].*)$/u;

/** A line that looks like a task line but is none, and why. */
export interface LookAlike {
  line: number;
  why: string;
}

/**
 * The lines that look like task lines but are no task: a marker mdclaim does
 * not read (said why), one with no text after it, or one in a code block, a
 * quote or HTML (an unclosed fence or a `<details>` swallows the tasks below
 * it). A person reading the board may expect them to be claimed; no claim
 * takes them. Inside an HTML comment they are taken as meant: commented out.
 */
export function lookAlikes(text: string, tasks: readonly Pick<Task, 'line'>[]): LookAlike[] {
  const isTask = new Set(tasks.map((t) => t.line));
  const found: LookAlike[] = [];
  let inComment = false;
  text.split('\n').forEach((line, i) => {
    const commented = inComment;
    const open = line.lastIndexOf('<!--');
    if (open >= 0 && line.indexOf('-->', open + 4) < 0) inComment = true;
    else if (inComment && line.includes('-->')) inComment = false;
    if (commented || open >= 0 || isTask.has(i + 1)) return;
    const m = LOOKS_LIKE.exec(line.replace(/\r$/, ''));
    if (m !== null) found.push({ line: i + 1, why: whyNot(m[1]!, m[2]!) });
  });
  return found;
}

/** Why a line that starts with `lead` and then the bracket `rest` is no task line. */
function whyNot(lead: string, rest: string): string {
  const src = bytes(rest);
  const marker = parseMarker(src, 0);
  if (marker === null) return markerProblem(rest);
  if (src.slice(marker.end).trim() === '') return 'a marker with no text after it';
  if (lead.includes('>')) return 'in a block quote';
  return 'in a code block, an HTML block or a heading';
}

/** What keeps the bracket at the start of `rest` from being a marker mdclaim reads. */
function markerProblem(rest: string): string {
  const close = rest.indexOf(']');
  const after = rest.charAt(close + 1);
  if (after !== '' && after !== ' ' && after !== '\t') return `no blank after the marker's "]" ("${rest.slice(0, close + 2)}")`;
  const inner = rest.slice(1, close);
  const sign = /^(?:⏰|🟡|✅|❌)\uFE0F?/u.exec(inner)?.[0] ?? '';
  const fields = inner.slice(sign.length).split(',').map((f) => f.trim());
  const head = fields.shift()!;
  const what = `"[${inner}]" is not a marker mdclaim reads`;
  if (sign === '' && head !== '') return `${what}: an unsigned marker's fields follow a comma ("[, id]")`;
  if (fields.some((f) => f === '') || (head === '' && /^\s+$/.test(inner.slice(sign.length, inner.indexOf(',') < 0 ? undefined : inner.indexOf(','))))) return `${what}: an empty field`;
  const blank = [head, ...fields].find((f) => /\s/.test(f));
  if (blank !== undefined) return `${what}: the field "${blank}" holds a blank`;
  if (sign.startsWith('🟡') && head === '' && fields.length >= 2) {
    if (!RFC3339.test(fields[1]!)) return `${what}: the claim time "${fields[1]}" is not RFC 3339 (2026-11-30T04:06:29Z)`;
    if (fields[2] !== undefined && readDuration(fields[2]) === null) return `${what}: "${fields[2]}" after the claim time is not a lease (30m, 2h)`;
  }
  if (fields.length + (head === '' ? 0 : 1) > 4) return `${what}: more fields than a marker holds`;
  return `${what} (see docs/FORMAT.md)`;
}
