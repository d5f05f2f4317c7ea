import { answersChangeAt, type TaskBlocker } from '../board/standing.js';
import { atDeadline } from '../storage/deadline.js';
import type { HistoryEvent, TaskBoard } from '../board/types.js';
import { HISTORY_WINDOW_MS } from './history-stats.js';
import type { Task } from '../format/task.js';
import type { ChangeSource } from '../board/types.js';
import { diffEvents, type WatchEvent } from './events.js';
import { frameLines } from './frame.js';
import type { Style } from './paint.js';
import { summarize, type Filter } from './summary.js';
import type { Key, Terminal } from './terminal.js';

/** At most four readings and four redraws a second, however fast the board changes. */
export const MIN_GAP_MS = 250;
/** A reading that has waited this long (a lock held long, a slow server) is said on screen. */
const SLOW_READ_MS = 2000;
const KEEP_EVENTS = 200;
/** The history (durations and rates) is read again at most this often: it changes the figures slowly. */
const HISTORY_EVERY_MS = 10_000;

export interface WatchOptions {
  location: string;
  filter: Filter;
  changes: ChangeSource;
  terminal: Terminal;
  style: Style;
}

/**
 * Follow a board on the terminal until a quit key (resolves 0) or a signal
 * (resolves 128 + its number). Only ever reads the board: through survey(),
 * under the file board's shared lock, never more often than MIN_GAP_MS.
 */
export function watchBoard(board: TaskBoard, o: WatchOptions): Promise<number> {
  const startedAt = Date.now();
  let tasks: Task[] | null = null;
  // The board's own answers for the tasks, as of the last reading (TaskBoard.survey), and until when
  // they stand: past that instant a claim may have lapsed, and the file board's rule answers at the
  // clock until the reading asked for then comes back (so one frame never says both lapsed and held).
  let blockers: (TaskBlocker | null)[] = [];
  let standUntil = Infinity;
  let changeTimer: (() => void) | null = null;
  let events: WatchEvent[] = [];
  // The board's history of the last HISTORY_WINDOW_MS, read again with a reading at most every HISTORY_EVERY_MS.
  let history: HistoryEvent[] | null = null;
  let historyAt = -Infinity;
  let historyTimer: NodeJS.Timeout | null = null;
  let problem: { message: string; since: number } | null = null;
  let help = false;
  let readingSince: number | null = null;
  let again = false;
  let lastRead = 0;
  let readTimer: NodeJS.Timeout | null = null;
  let lastDraw = 0;
  let drawTimer: NodeJS.Timeout | null = null;
  // Once quit, a reading still under way neither draws nor reads again (the board is being closed).
  let finished = false;

  // The terminal gone (EIO, EPIPE): end as a closed terminal ends a program.
  let gone = (_err: unknown) => {};
  const draw = () => {
    drawTimer = null;
    lastDraw = Date.now();
    const slow = readingSince !== null && lastDraw - readingSince >= SLOW_READ_MS ? { message: 'still waiting for the board (a lock held long, or a slow server)', since: readingSince } : null;
    const summary = tasks === null ? null : summarize(tasks, lastDraw, o.filter, events, startedAt, lastDraw < standUntil ? blockers : undefined, history);
    const lines = frameLines({ location: o.location, summary, events, nowMs: lastDraw, problem: problem ?? slow, help, columns: o.terminal.columns, rows: o.terminal.rows }, o.style);
    try {
      o.terminal.draw(lines);
    } catch (err) {
      gone(err);
    }
  };
  const redraw = () => {
    if (finished) return;
    drawTimer ??= setTimeout(draw, Math.max(0, lastDraw + MIN_GAP_MS - Date.now()));
  };

  const read = async () => {
    readTimer = null;
    if (readingSince !== null) {
      again = true;
      return;
    }
    readingSince = lastRead = Date.now();
    try {
      const next = await board.survey();
      // A change seen sooner than that is read from the history once the interval is over.
      const wait = historyAt + HISTORY_EVERY_MS - Date.now();
      if (wait <= 0) await readHistory();
      else historyTimer ??= setTimeout(() => void readHistory().then(redraw), wait);
      if (tasks !== null) events = [...events, ...diffEvents(tasks, next.tasks, Date.now())].slice(-KEEP_EVENTS);
      tasks = next.tasks;
      blockers = next.blockers;
      standUntil = answersChangeAt(tasks, readingSince);
      changeTimer?.();
      // Read again once the clock has changed an answer (the database's clock too: a little after);
      // a claim's lease can be years, past what one timer holds (see atDeadline).
      changeTimer = Number.isFinite(standUntil) ? atDeadline(standUntil + 100, poke) : null;
      problem = null;
    } catch (err) {
      problem ??= { message: (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' '), since: readingSince };
    } finally {
      readingSince = null;
    }
    redraw();
    if (again) {
      again = false;
      poke();
    }
  };
  const readHistory = async () => {
    historyTimer = null;
    if (finished) return;
    historyAt = Date.now();
    history = await board.history({ since: historyAt - HISTORY_WINDOW_MS }).catch(() => history);
  };
  const poke = () => {
    if (finished) return;
    readTimer ??= setTimeout(() => void read(), Math.max(0, lastRead + MIN_GAP_MS - Date.now()));
  };

  return new Promise<number>((resolve) => {
    const tick = setInterval(redraw, 1000);
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      clearInterval(tick);
      if (readTimer) clearTimeout(readTimer);
      changeTimer?.();
      if (drawTimer) clearTimeout(drawTimer);
      if (historyTimer) clearTimeout(historyTimer);
      for (const [signal, handler] of signals) process.removeListener(signal, handler);
      o.terminal.close();
      void o.changes.close().finally(() => resolve(code));
    };
    // A signal ends the view like a quit key, the terminal restored; its status says which.
    const signals = ([['SIGTERM', 143], ['SIGHUP', 129], ['SIGINT', 0]] as const).map(([signal, code]) => [signal, () => finish(code)] as const);
    for (const [signal, handler] of signals) process.on(signal, handler);
    gone = () => finish(129);
    const onKey = (key: Key) => {
      if (key.name === 'q' || (key.ctrl && (key.name === 'c' || key.name === 'd'))) finish(0);
      else if (key.sequence === '?') {
        help = !help;
        draw();
      }
    };
    o.terminal.open(onKey, draw);
    draw();
    o.changes.start(poke);
    void read();
  });
}
