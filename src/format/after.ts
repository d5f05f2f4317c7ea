/**
 * What a task line says it waits for: `{after: 9f2c41d0aa13, PLAT-3}` (tasks
 * by id, or by a unique start of one) and `{after: section api}` (every other
 * task of a section), in the same form as `{writes: …}` (declared.ts), outside
 * code spans, as often as it likes. It is part of the text as people write it
 * but not of what makes the task's id (see id.ts): adding, changing or removing
 * it keeps the id, so what waits for the task stays valid.
 */

// `{after: a, b}`: the key, a colon, then anything up to the closing brace.
export const AFTER = /\{[ \t]*after[ \t]*:([^{}]*)\}/g;
// A declaration with the blanks before it; one the text starts with, with the blanks after it.
const INNER = /[ \t]*\{[ \t]*after[ \t]*:[^{}]*\}/g;
const LEADING = /^(?:\{[ \t]*after[ \t]*:[^{}]*\}[ \t]*)+/;
const CODE = /`[^`]*`/g;

/** One thing a task waits for: a task by id (or the start of one), or every other task of a section. */
export type AfterItem = { kind: 'id'; id: string } | { kind: 'section'; name: string };

/** Can this text hold `{after: …}` at all? (The cheap test before the regex runs.) */
export function mayWait(text: string): boolean {
  return text.includes('{') && text.includes('after');
}

/**
 * The items of a text's `{after: …}` declarations, each once, in the order
 * written, as a PostgreSQL row keeps them: an id as written, a section as
 * `section NAME`.
 */
export function parseAfter(text: string): string[] {
  if (!mayWait(text)) return [];
  const out: string[] = [];
  for (const prose of proseOf(text)) {
    for (const m of prose.matchAll(AFTER)) {
      for (const raw of m[1]!.split(',')) {
        const item = raw.trim().replace(/^section[ \t]+/, 'section ');
        if (item !== '' && !out.includes(item)) out.push(item);
      }
    }
  }
  return out;
}

/** An item of parseAfter as the rule reads it. */
export function afterItem(item: string): AfterItem {
  return item.startsWith('section ') ? { kind: 'section', name: item.slice(8).trim() } : { kind: 'id', id: item };
}

/**
 * The text without its `{after: …}` declarations and the blanks before each
 * (after one the text starts with): what a task's id is made from, so that
 * `Deploy {after: 9f2c}` and `Deploy` are one task. Byte strings and text alike.
 */
export function withoutAfter(text: string): string {
  if (!mayWait(text)) return text;
  let first = true;
  let out = '';
  let from = 0;
  const prose = (p: string) => {
    let q = first ? p.replace(LEADING, '') : p;
    q = q.replace(INNER, '');
    first = false;
    return q;
  };
  for (const m of text.matchAll(CODE)) {
    out += prose(text.slice(from, m.index)) + m[0];
    from = m.index + m[0].length;
  }
  return out + prose(text.slice(from));
}

/** The parts of a text outside code spans. */
function proseOf(text: string): string[] {
  return text.includes('`') ? text.split(CODE) : [text];
}
