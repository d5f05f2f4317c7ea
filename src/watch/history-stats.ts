import type { HistoryEvent } from '../board/types.js';
import type { Task } from '../format/task.js';

// Durations and rates from a board's history, for `status` and `watch`: one
// pure function of the events, the tasks (for their sections) and the clock,
// the same on both boards since both keep the same events.

/** How far back status and watch read the history: the window of the durations and the "most" lists. */
export const HISTORY_WINDOW_MS = 24 * 3_600_000;
/** The window of the done and failed counts. */
const RATE_HOUR_MS = 3_600_000;
/** How many tasks each "most" list names. */
const MOST = 3;

export interface TaskCount {
  id: string;
  text: string;
  count: number;
}

export interface HistoryFigures {
  /** Done in the last hour. */
  done: number;
  /** Failed in the last hour (a parking too). */
  failed: number;
  /** From a claim (or takeover) to the done that ended it, over the window: the median, and the slowest with its task. */
  medianMs: number | null;
  slowest: (TaskCount & { ms: number }) | null;
  /** The tasks that failed (or were parked) most, and were taken over most, over the window: most first, at most 3. */
  failedMost: TaskCount[];
  takenOverMost: TaskCount[];
}

export interface HistoryStats extends HistoryFigures {
  /** The window the figures read, in milliseconds (the counts: the last hour). */
  windowMs: number;
  /** The same figures per section, in board order (`null`: tasks above the first heading); only sections with events. */
  sections: ({ name: string | null } & HistoryFigures)[];
}

/**
 * The figures of `events` (oldest first) at `nowMs`: for the board, and per
 * section of the task each event names on the board now. `inView` keeps only
 * the tasks a filter shows (an event of a task no longer on the board counts
 * for the board alone, and only without a filter).
 */
export function historyStats(events: readonly HistoryEvent[], tasks: readonly Task[], nowMs: number, inView: (t: Task) => boolean = () => true, filtered = false): HistoryStats {
  const sectionOf = new Map<string, string | null>();
  const order: (string | null)[] = [];
  for (const t of tasks) {
    if (!inView(t) || sectionOf.has(t.id)) continue;
    const name = t.section ?? null;
    sectionOf.set(t.id, name);
    if (!order.includes(name)) order.push(name);
  }
  const mine = events.filter((e) => sectionOf.has(e.id) || !filtered);
  const sections = order
    .map((name) => ({ name, ...figures(mine.filter((e) => sectionOf.get(e.id) === name), nowMs) }))
    .filter((s) => s.done + s.failed > 0 || s.medianMs !== null || s.failedMost.length + s.takenOverMost.length > 0);
  return { windowMs: HISTORY_WINDOW_MS, ...figures(mine, nowMs), sections };
}

function figures(events: readonly HistoryEvent[], nowMs: number): HistoryFigures {
  const from = nowMs - HISTORY_WINDOW_MS;
  const hour = nowMs - RATE_HOUR_MS;
  const claimedAt = new Map<string, number>();
  const spans: (TaskCount & { ms: number })[] = [];
  const failed = new Map<string, TaskCount>();
  const takenOver = new Map<string, TaskCount>();
  let done = 0;
  let failedNow = 0;
  for (const e of events) {
    const at = Date.parse(e.at);
    if (!Number.isFinite(at) || at > nowMs) continue;
    if (e.event === 'claimed' || e.event === 'taken over') claimedAt.set(e.id, at);
    if (at >= from) count(e, at);
    // Any other change but a renewal or a path lock ends the claim.
    if (e.event !== 'claimed' && e.event !== 'taken over' && e.event !== 'renewed' && e.event !== 'locked' && e.event !== 'unlocked') claimedAt.delete(e.id);
  }
  function count(e: HistoryEvent, at: number): void {
    if (e.event === 'done') {
      if (at >= hour) done++;
      const start = claimedAt.get(e.id);
      if (start !== undefined) spans.push({ id: e.id, text: e.text, count: 1, ms: at - start });
    }
    if (e.event === 'failed' || e.event === 'parked') {
      if (at >= hour) failedNow++;
      bump(failed, e);
    }
    if (e.event === 'taken over') bump(takenOver, e);
  }
  const ms = spans.map((s) => s.ms).sort((a, b) => a - b);
  const slowest = spans.reduce<(typeof spans)[number] | null>((a, s) => (a === null || s.ms > a.ms ? s : a), null);
  return { done, failed: failedNow, medianMs: median(ms), slowest, failedMost: most(failed), takenOverMost: most(takenOver) };
}

/** The median of sorted numbers (the mean of the middle two for an even count); null for none. */
export function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function bump(m: Map<string, TaskCount>, e: HistoryEvent): void {
  const c = m.get(e.id) ?? { id: e.id, text: e.text, count: 0 };
  c.count++;
  m.set(e.id, c);
}

function most(m: Map<string, TaskCount>): TaskCount[] {
  return [...m.values()].sort((a, b) => b.count - a.count).slice(0, MOST);
}
