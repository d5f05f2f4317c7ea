/**
 * Paths a task declares (`{writes: a, b}`, `{reads: c}`) or locks while it
 * works: relative to the board's directory, in one normal form so that two
 * spellings of a path are one path. Pure: no I/O, no errors thrown (callers
 * decide what a bad path means).
 */

import { CONTROL, jsonText } from './printable.js';

export type PathMode = 'write' | 'read';

/** The whole tree: a directory covering everything under the board's directory. */
export const ROOT = './';

/** The longest path accepted, as Linux's PATH_MAX. */
const MAX_PATH = 4096;

// A path is one word on a line: no blanks or controls (C0, DEL, C1: see printable); not the declaration's own `,{}`;
// not `[]<>`, backtick or `"`, which could start or end something on a markdown line;
// not `\` (no separator here); not `*?`: no globs, a trailing `/` covers a directory.
const BAD = /[\s\x00-\x1f\x7f-\x9f,{}[\]<>`"\\*?]/u;

export type Normalised = { path: string } | { error: string };

/**
 * The normal form of a path: no `./`, no `..`, no doubled `/`; a directory
 * (written with a trailing `/`, or ending in `.` or `..`) keeps one trailing
 * `/`; the tree itself is `./`. A path that leaves the tree, is absolute,
 * empty or holds a character listed above is an error.
 */
export function normalisePath(raw: string): Normalised {
  if (raw === '') return { error: 'a path is empty' };
  if (raw.length > MAX_PATH) return { error: `a path is longer than ${MAX_PATH} characters` };
  const bad = BAD.exec(raw);
  if (bad) return { error: `path ${jsonText(raw)} holds ${describe(bad[0])}, which a path here may not` };
  if (raw.startsWith('/')) return { error: `path "${raw}" is absolute: paths are relative to the board's directory` };
  const parts: string[] = [];
  const segments = raw.split('/');
  let dir = raw.endsWith('/');
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const last = i === segments.length - 1;
    if (s === '') continue;
    if (s === '.' || s === '..') {
      if (s === '..' && parts.pop() === undefined) return { error: `path "${raw}" leaves the board's directory` };
      if (last) dir = true;
      continue;
    }
    parts.push(s);
  }
  if (parts.length === 0) return { path: ROOT };
  return { path: parts.join('/') + (dir ? '/' : '') };
}

function describe(c: string): string {
  if (/\s/u.test(c)) return 'a blank';
  if (CONTROL.test(c)) return 'a control character';
  return `"${c}"`;
}

export function isDirectory(path: string): boolean {
  return path.endsWith('/');
}

/**
 * Do two normal paths name something in common? The same path; a directory
 * and anything under it; the tree and anything. A file and a directory of the
 * same name (`src/auth`, `src/auth/`) are one entry on disk, so they overlap too.
 */
export function overlaps(a: string, b: string): boolean {
  if (a === b || a === ROOT || b === ROOT) return true;
  const da = isDirectory(a);
  const db = isDirectory(b);
  if (da && b.startsWith(a)) return true;
  if (db && a.startsWith(b)) return true;
  return (da && !db && a.length === b.length + 1 && a.startsWith(b)) || (db && !da && b.length === a.length + 1 && b.startsWith(a));
}
