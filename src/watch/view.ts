import { waitsText } from '../board/conflict.js';
import { printable } from '../format/printable.js';
import type { WatchEvent } from './events.js';
import { span, spanAhead } from '../format/span.js';
import { bar, paint, type Line, type Seg, type Style } from './paint.js';
import type { ClaimView, Summary } from './summary.js';
import type { HistoryFigures, HistoryStats } from './history-stats.js';

// The summary as lines: the same blocks for `status` (all of them, once) and
// `watch` (as many as the screen holds, refreshed).

export interface Block {
  title: Line;
  lines: Line[];
}

/** The header: counts by status, then a progress bar per section and the done rate. */
export function headLines(s: Summary, style: Style, maxSections = Infinity): Line[] {
  const g = style.glyphs;
  const c = s.counts;
  const counts: Seg[] = [
    [`${g ? '⬜ ' : ''}open ${c.open}`],
    ['  '],
    [`${g ? '⏰ ' : ''}blocked ${c.blocked}`, c.blocked > 0 ? 'magenta' : undefined],
    ['  '],
    [`${g ? '🟡 ' : ''}claimed ${c.claimed}`, 'yellow'],
    ...(s.lapsed > 0 ? ([[` (${s.lapsed} lapsed)`, 'red']] as Seg[]) : []),
    ['  '],
    [`${g ? '✅ ' : ''}done ${c.done}`, 'green'],
    ['  '],
    [`${g ? '❌ ' : ''}failed ${c.failed}`, c.failed > 0 ? 'red' : undefined],
    [`   ${c.total} tasks`, 'dim'],
  ];
  const out: Line[] = [counts];
  const shown = s.sections.length > maxSections ? s.sections.slice(0, Math.max(0, maxSections - 1)) : s.sections;
  // A loop, not Math.max(...): a board may have very many sections.
  let nameWidth = 8;
  // Measured as painted: a heading's controls show escaped (see paint).
  const nameOf = (x: (typeof shown)[number]) => printable(x.name ?? '(no heading)');
  for (const x of shown) nameWidth = Math.min(24, Math.max(nameWidth, style.width(nameOf(x))));
  for (const x of shown) {
    const name = nameOf(x);
    out.push([[fitName(name, nameWidth, style)], [' '], ...bar(x.done, x.total, 20, style), [` ${x.done}/${x.total} done`]]);
  }
  if (shown.length < s.sections.length) out.push([[`… ${s.sections.length - shown.length} more sections`, 'dim']]);
  if (s.doneRate) out.push([[`done rate: ${s.doneRate.perMinute}/min over the last ${span(s.doneRate.windowMs)} (${s.doneRate.done} done)`, 'dim']]);
  return out;
}

/** The blocks under the header, in the order a person looks: claims, paths, blocked tasks, events, failures. */
export function blocks(s: Summary, events: readonly WatchEvent[] | null, style: Style, clock: (ms: number) => string): Block[] {
  const out: Block[] = [];
  const state = `${s.live} live, ${s.lapsed} lapsed, ${s.untimed} untimed`;
  out.push({ title: [[`Claims (${state})`, 'bold']], lines: s.claims.map((c) => claimLine(c, style)) });
  if (s.paths.length > 0) {
    out.push({
      title: [[`Paths held (${s.paths.length})`, 'bold']],
      lines: s.paths.map((p) => [[`  ${p.path}`, 'cyan'], [` ${p.mode}${p.kind === 'locked' ? ', locked' : ''}`, 'dim'], [`  ${p.by ?? 'unnamed'} on ${p.task}`]]),
    });
  }
  if (s.blocked.length > 0) {
    out.push({
      title: [[`Blocked (${s.blocked.length})`, 'bold']],
      lines: s.blocked.map((b): Line =>
        b.reason === 'path'
          ? [[`  ${b.id}`], [`  ${b.path} (${b.mode}) held by ${b.by ?? 'unnamed'} on ${b.task}`, 'magenta'], [`  ${b.text}`, 'dim']]
          : b.reason === 'retry'
            ? [[`  ${b.id}`], [`  retry not before ${b.notBefore}`, 'magenta'], [`  ${b.text}`, 'dim']]
            : b.reason === 'after'
              ? [[`  ${b.id}`], [`  ${waitsText(b.task)}`, 'magenta'], [`  ${b.text}`, 'dim']]
              : [[`  ${b.id}`], [`  ${style.glyphs ? '⏰' : '[blocked]'} waits for ${b.task}`, 'magenta'], [`  ${b.text}`, 'dim']],
      ),
    });
  }
  if (events !== null) {
    out.push({ title: [['Events', 'bold']], lines: events.length === 0 ? [[['  none seen yet', 'dim']]] : [...events].reverse().map((e) => eventLine(e, clock)) });
  }
  if (s.failures.length > 0) {
    out.push({
      title: [[`Failed (${s.failures.length})`, 'bold']],
      lines: s.failures.map((f) => [[`  ${f.id}`, 'red'], [`  ${f.reason ?? 'no reason given'}`], [`  ${f.text}`, 'dim']]),
    });
  }
  if (s.history && (s.history.done + s.history.failed > 0 || s.history.medianMs !== null || s.history.failedMost.length + s.history.takenOverMost.length > 0)) {
    out.push(historyBlock(s.history, style));
  }
  return out;
}

/** Durations and rates from the history: the board's, each section's, and the tasks that failed or were taken over most. */
function historyBlock(h: HistoryStats, style: Style): Block {
  const arrow = style.glyphs ? '→' : '->';
  const figures = (f: HistoryFigures): Seg[] => [
    [`${f.done} done`, f.done > 0 ? 'green' : undefined],
    [', '],
    [`${f.failed} failed`, f.failed > 0 ? 'red' : undefined],
    [f.medianMs === null ? `; claim${arrow}done: none` : `; claim${arrow}done median ${span(f.medianMs)}, slowest ${span(f.slowest!.ms)} (${f.slowest!.id})`, 'dim'],
  ];
  const lines: Line[] = [[['  board  '], ...figures(h)]];
  for (const x of h.sections) lines.push([[`  ${printable(x.name ?? '(no heading)')}  `], ...figures(x)]);
  const most = (what: string, xs: readonly { id: string; count: number }[]): Line[] =>
    xs.length === 0 ? [] : [[[`  ${what}: `], [xs.map((x) => `${x.id} ×${x.count}`).join(', '), 'yellow']]];
  lines.push(...most('failed most', h.failedMost), ...most('taken over most', h.takenOverMost));
  return { title: [[`History (done and failed: last hour; durations and most: last ${span(h.windowMs)})`, 'bold']], lines };
}

function claimLine(c: ClaimView, style: Style): Line {
  const who: Seg = [`  ${c.by ?? 'unnamed'}`];
  const text: Seg = [`  ${c.text}`, 'dim'];
  if (c.state === 'untimed') return [['  untimed   ', 'dim'], [c.id], who, ['  ADW claim with no time: never lapses by itself', 'dim'], text];
  const held: Seg = [`  held ${span(c.heldMs ?? 0)}`];
  if (c.state === 'lapsed') return [[`  ${style.glyphs ? '⚠' : '!'} LAPSED  `, 'red'], [c.id], who, held, [`  lapsed ${span(c.leftMs ?? 0)} ago, waits for a reaper or a taker`, 'red'], text];
  const left = c.leftMs ?? 0;
  return [[`  ${spanAhead(left).padStart(8)}  `, left < 60_000 ? 'yellow' : 'green'], [c.id], who, held, [` of ${c.lease ?? '30m'}`, 'dim'], text];
}

function eventLine(e: WatchEvent, clock: (ms: number) => string): Line {
  const tone = e.event === 'failed' ? 'red' : e.event === 'done' ? 'green' : e.event === 'reaped' || e.event === 'taken over' ? 'yellow' : undefined;
  const who = e.by !== undefined ? ` by ${e.by}` : '';
  const from = e.from !== undefined ? ` from ${e.from}` : '';
  const extra = e.reason !== undefined ? `: ${e.reason}` : e.commit !== undefined ? ` at ${e.commit}` : e.notBefore !== undefined ? `, not before ${e.notBefore}` : '';
  return [[`  ${clock(e.at)}  `, 'dim'], [e.event.padEnd(10), tone], [` ${e.id}${who}${from}${extra}`], [`  ${e.text}`, 'dim']];
}

function fitName(name: string, width: number, style: Style): string {
  const w = style.width(name);
  return w <= width ? name + ' '.repeat(width - w) : paint([[name]], width, { ...style, color: false });
}

/**
 * Lay blocks into `rows` lines: each block its title and as many lines as a
 * fair share allows (room one block leaves goes to the others), a `… N more`
 * where some did not fit.
 */
export function layout(blockList: readonly Block[], rows: number): Line[] {
  const want = blockList.map((b) => b.lines.length);
  const give = want.map(() => 0);
  let room = rows - blockList.length;
  // Hand out one line at a time, round the blocks, to those that still want some.
  while (room > 0 && give.some((g, i) => g < want[i]!)) {
    for (let i = 0; i < give.length && room > 0; i++) {
      if (give[i]! < want[i]!) {
        give[i]!++;
        room--;
      }
    }
  }
  const out: Line[] = [];
  blockList.forEach((b, i) => {
    if (out.length >= rows) return;
    out.push(b.title);
    const n = give[i]!;
    const shown = n < want[i]! ? Math.max(0, n - 1) : n;
    out.push(...b.lines.slice(0, shown));
    if (shown < want[i]!) out.push([[`  … ${want[i]! - shown} more`, 'dim']]);
  });
  return out.slice(0, rows);
}
