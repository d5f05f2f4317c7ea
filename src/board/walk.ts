import type { ByteString } from '../format/bytes.js';
import { baseId, IdAssigner, sameness, withOrdinal } from '../format/id.js';
import { TaskScanner, type TaskLine } from '../format/scan.js';
import { textRange, toTask, type Task } from '../format/task.js';

/** A task line seen in file order, with what the claimable predicate needs to know about the lines above it. */
export interface Seen {
  t: TaskLine;
  /** Byte range of its text (see textRange). */
  text: [number, number];
  /** Is every task above it in its section done? (What unblocks a `[⏰]`.) */
  aboveAllDone: boolean;
}

/**
 * Stand the scanner on each task line in file order until `visit` returns
 * true; returns the scanner, standing on that line, or null. Nothing is built
 * for the lines passed over: a claim reads past every claimed line above the
 * first open one.
 */
export function walkLines(src: ByteString, visit: (s: TaskScanner, aboveAllDone: boolean) => boolean | void): TaskScanner | null {
  const s = new TaskScanner(src);
  let section: string | undefined;
  let allDone = true;
  while (s.advance()) {
    if (s.section !== section) {
      section = s.section;
      allDone = true;
    }
    if (visit(s, allDone)) return s;
    if (s.status !== 'done') allDone = false;
  }
  return null;
}

/** The line the scanner stands on, as a Seen. */
export function seenAt(src: ByteString, s: TaskScanner, aboveAllDone: boolean): Seen {
  const t = s.taskLine();
  return { t, text: textRange(src, t), aboveAllDone };
}

/**
 * Visit task lines in file order until `visit` returns true; returns the
 * line it stopped at. Ids are not computed here: the hot path only needs the
 * id of the one task it picks (see idOf).
 */
export function walk(src: ByteString, visit: (s: Seen, index: number) => boolean | void): Seen | null {
  let index = 0;
  let seen: Seen | null = null;
  const stopped = walkLines(src, (s, aboveAllDone) => {
    seen = seenAt(src, s, aboveAllDone);
    return Boolean(visit(seen, index++));
  });
  return stopped ? seen : null;
}

/** Every task with its id, in file order. */
export function listTasks(src: ByteString): Task[] {
  const ids = new IdAssigner();
  const tasks: Task[] = [];
  walk(src, (s) => {
    tasks.push(toTask(src, s.t, ids.assign(src, s.text[0], s.text[1])));
  });
  return tasks;
}

/**
 * The id of the task whose text is `target`, on line `line`. Duplicates are
 * numbered in file order, but a key or text that occurs nowhere above the
 * task cannot be a duplicate's, so the lines above are read again only when
 * it does.
 */
export function idOf(src: ByteString, target: [number, number], line: number): string {
  const base = baseId(src, target[0], target[1]);
  const same = sameness(src, target[0], target[1]);
  if (same !== '' && src.indexOf(same) >= target[0]) return base;
  let n = 1;
  walk(src, (s) => {
    if (s.t.line >= line) return true;
    if (sameness(src, s.text[0], s.text[1]) === same) n++;
  });
  return withOrdinal(base, n);
}

/** Find a task by the id list/next print. */
export function findById(src: ByteString, id: string): { seen: Seen; task: Task } | null {
  const ids = new IdAssigner();
  let found: Task | null = null;
  const seen = walk(src, (s) => {
    const sid = ids.assign(src, s.text[0], s.text[1]);
    if (sid !== id) return false;
    found = toTask(src, s.t, sid);
    return true;
  });
  return seen && found ? { seen, task: found } : null;
}
