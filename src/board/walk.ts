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
 * Visit task lines in file order until `visit` returns true; returns the
 * line it stopped at. Ids are not computed here: the hot path only needs the
 * id of the one task it picks (see idOf).
 */
export function walk(src: ByteString, visit: (s: Seen, index: number) => boolean | void): Seen | null {
  const scanner = new TaskScanner(src);
  let section: string | undefined;
  let allDone = true;
  let index = 0;
  for (let t = scanner.next(); t; t = scanner.next(), index++) {
    if (t.section !== section) {
      section = t.section;
      allDone = true;
    }
    const seen: Seen = { t, text: textRange(src, t), aboveAllDone: allDone };
    if (visit(seen, index)) return seen;
    if (t.marker.status !== 'done') allDone = false;
  }
  return null;
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

/** The id of one task, given the text ranges of every task above it (duplicates are numbered in file order). */
export function idOf(src: ByteString, target: [number, number], above: readonly number[]): string {
  const same = sameness(src, target[0], target[1]);
  let n = 1;
  for (let i = 0; i < above.length; i += 2) {
    const s = above[i]!;
    const e = above[i + 1]!;
    // Cheap length test first; only texts of the same length (or sharing a key) can be the same.
    if ((e - s === same.length || src.charCodeAt(s) === same.charCodeAt(0)) && sameness(src, s, e) === same) n++;
  }
  return withOrdinal(baseId(src, target[0], target[1]), n);
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
