import { bytes } from './bytes.js';

/**
 * A pattern for a run of "settled" task lines, as boards pile them up above
 * their first open task: top-level bullet items (`- `, `* `, `+ ` at the
 * start of the line, one space) whose marker is done (`[x]`, `[X]`,
 * `[✅ commit, by]`, `[✅, by]`), failed (`[❌, by]`), or the claim mdclaim
 * writes with the default lease (`[🟡, by, <time>]`, U+FE0F after the 🟡 for a
 * line that was `[]`) with a claim time later
 * than `claimedAfter`, each followed by text and a `\n` or `\r\n`.
 *
 * Each such line is a task line whatever comes before it (a top-level item
 * closes every open block, and a block quote, code or HTML block open before
 * it is the caller's to rule out), so the scanner can pass over a whole run in
 * one native match instead of reading it line by line. Sticky: it matches at
 * `lastIndex` or not at all.
 */
export function settledRun(claimedAfter: string): SettledRuns {
  // Building one costs tens of microseconds: callers ask for the same one again and again.
  if (claimedAfter !== last.after) last = { after: claimedAfter, runs: build(claimedAfter) };
  return last.runs;
}

/**
 * The two shapes a run of settled lines takes: top-level bullet items
 * (`items`), and ADW's bare lines (`bare`: `[x] task`, `[🟡, by, time] task`,
 * each after any blanks), which continue an open paragraph. The same markers
 * in both; which one applies is the scanner's to judge from what is open.
 */
export interface SettledRuns {
  items: RegExp;
  bare: RegExp;
}

let last: { after: string; runs: SettledRuns } = { after: '', runs: { items: /(?!)/y, bare: /(?!)/y } };

function build(claimedAfter: string): SettledRuns {
  const by = '[A-Za-z0-9._:@-]{1,64}';
  const marker = [
    '\\[[xX]\\]',
    `\\[${latin1('✅')}(?: [A-Za-z0-9._/-]{1,64})?, ${by}\\]`,
    `\\[${latin1('❌')}, ${by}\\]`,
    `\\[${latin1('🟡')}(?:${latin1('\uFE0F')})?, ${by}, ${laterThan(claimedAfter)}\\]`,
  ].join('|');
  const line = `(?:${marker})[ \\t]+[^ \\t\\r\\n][^\\r\\n]*\\r?\\n`;
  return { items: new RegExp(`(?:[-*+] ${line})+`, 'y'), bare: new RegExp(`(?:[ \\t]*${line})+`, 'y') };
}

// `2026-11-30T04:06:29Z`: which characters of the shape are digits.
const SHAPE = '0000-00-00T00:00:00Z';

/**
 * A pattern for the times of that shape later than `time` (of the same
 * shape): equal up to some digit, greater there, any digits after. For
 * fixed-width digits that is the string order, the order the lease check
 * compares in. Nested by common prefix, so a match compares each character
 * about once.
 */
function laterThan(time: string): string {
  if (time.length !== SHAPE.length) throw new RangeError(`not a claim time: ${time}`);
  const any = (from: number) => [...SHAPE.slice(from)].map((c) => (c === '0' ? '\\d' : c)).join('');
  const later = (k: number): string => {
    // Equal all through is not later.
    if (k === SHAPE.length) return '(?!)';
    const c = time[k]!;
    if (SHAPE[k] !== '0') return c + later(k + 1);
    if (c === '9') return c + later(k + 1);
    return `(?:[${String.fromCharCode(c.charCodeAt(0) + 1)}-9]${any(k + 1)}|${c}${later(k + 1)})`;
  };
  return later(0);
}

function latin1(text: string): string {
  return [...bytes(text)].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
}
