import type { WatchEvent } from './events.js';
import { span } from '../format/span.js';
import { paint, type Line, type Style } from './paint.js';
import type { Summary } from './summary.js';
import { blocks, headLines, layout } from './view.js';

// One screen of `watch`, as the terminal's lines: pure, so a test reads it without a terminal.

export interface FrameInput {
  location: string;
  /** null until the board was read once. */
  summary: Summary | null;
  events: readonly WatchEvent[];
  nowMs: number;
  /** Why the board could not be read, and since when: shown, and kept trying. */
  problem: { message: string; since: number } | null;
  help: boolean;
  columns: number;
  rows: number;
}

export const KEYS: readonly (readonly [string, string])[] = [
  ['q, Ctrl-C', 'quit (exit 0; the terminal is restored)'],
  ['?', 'show or hide these keys'],
  ['', ''],
  ['', 'The view follows the board as others change it: a change'],
  ['', 'notification with a slow poll behind it (file), LISTEN/NOTIFY with'],
  ['', 'a poll of the history behind it (PostgreSQL). It never writes.'],
  ['', 'A claim past its lease is LAPSED: it waits for a reaper or a taker.'],
  ['', 'Events are told from the difference between two readings.'],
];

/** The lines of one screen, each at most `columns` wide, `rows` of them. */
export function frameLines(f: FrameInput, style: Style): string[] {
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
  const top: Line = [[' mdclaim watch ', 'inverse'], [` ${f.location}`, 'bold'], [`  ${clock(f.nowMs)} UTC`, 'dim']];
  const lines: Line[] = [top];
  if (f.problem) {
    lines.push([[` ${style.glyphs ? '⚠' : '!'} cannot read the board (for ${span(f.nowMs - f.problem.since)}; still trying, showing the last reading): ${f.problem.message}`, 'red']]);
  }
  const foot: Line = [[' q', 'bold'], [' quit  '], ['?', 'bold'], [f.help ? ' hide keys' : ' keys']];
  const body = f.rows - lines.length - 1;
  if (f.help) {
    lines.push([['Keys', 'bold']], ...KEYS.map(([k, what]): Line => [[`  ${k.padEnd(10)}`, 'bold'], [what]]));
  } else if (f.summary === null) {
    if (!f.problem) lines.push([['reading the board…', 'dim']]);
  } else {
    const head = headLines(f.summary, style, Math.max(2, Math.floor(f.rows / 5)));
    lines.push(...head, []);
    lines.push(...layout(blocks(f.summary, f.events.slice(-50), style, clock), Math.max(0, body - head.length - 1)));
  }
  const out = lines.slice(0, Math.max(0, f.rows - 1)).map((l) => paint(l, f.columns, style));
  while (out.length < f.rows - 1) out.push('');
  out.push(paint(foot, f.columns, style));
  return out.slice(0, f.rows);
}
