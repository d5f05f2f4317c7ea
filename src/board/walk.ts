import type { ByteString } from '../format/bytes.js';
import { answersTo, idForm, taskId, trackerKey } from '../format/id.js';
import { TaskScanner, type TaskLine } from '../format/scan.js';
import type { SettledRuns } from '../format/settled-run.js';
import type { Tries } from '../format/attempts.js';
import { textAndTries, toTask, type Task } from '../format/task.js';

/** A task line seen in file order, with what the claimable predicate needs to know about the lines above it. */
export interface Seen {
  t: TaskLine;
  /** Byte range of its text (see textRange). */
  text: [number, number];
  /** The attempts field after the text, if any (see attempts.ts), and where it ends (the text's end when there is none). */
  tries: Tries | null;
  triesEnd: number;
  /** Is every task above it in its section done? (What unblocks a `[⏰]`.) */
  aboveAllDone: boolean;
}

/**
 * Stand the scanner on each task in file order until `visit` returns true;
 * returns the scanner, standing on that task, or null. A marker with nothing
 * after it (`- [ ]` alone) is no task, as GFM reads it. Nothing is built for
 * the lines passed over: a claim reads past every claimed line above the
 * first open one, and `passOver` lets it pass over whole runs of lines the
 * visitor would refuse without visiting them.
 */
export function walkLines(
  src: ByteString,
  visit: (s: TaskScanner, aboveAllDone: boolean) => boolean | void,
  scanner = new TaskScanner(src),
  passOver?: () => SettledRuns,
): TaskScanner | null {
  const s = scanner;
  let section: string | undefined;
  let allDone = true;
  while (s.advance()) {
    if (nothingAfter(src, s.markerEnd, s.end)) continue;
    if (s.section !== section) {
      section = s.section;
      allDone = true;
    }
    if (visit(s, allDone)) return s;
    if (s.status !== 'done') allDone = false;
    // A run of lines the caller would refuse (see settledRun): none can start a section, and
    // once a task above is not done, none can change what a blocked task below needs.
    if (passOver !== undefined && !allDone) s.skipRun(passOver());
  }
  return null;
}

/** The task the scanner stands on, as a Seen. */
export function seenAt(src: ByteString, s: TaskScanner, aboveAllDone: boolean): Seen {
  const t = s.taskLine();
  const r = textAndTries(src, t.marker.status, t.marker.end, t.end);
  return { t, text: [r.start, r.end], tries: r.tries, triesEnd: r.triesEnd, aboveAllDone };
}

/**
 * Visit tasks in file order until `visit` returns true; returns the one it
 * stopped at (see walkLines). Ids are not computed here: the hot path only
 * needs the id of the one task it picks (see idOf).
 */
export function walk(src: ByteString, visit: (s: Seen) => boolean | void, scanner = new TaskScanner(src)): Seen | null {
  let seen: Seen | null = null;
  const stopped = walkLines(
    src,
    (s, aboveAllDone) => {
      seen = seenAt(src, s, aboveAllDone);
      return Boolean(visit(seen));
    },
    scanner,
  );
  return stopped ? seen : null;
}

function nothingAfter(src: ByteString, from: number, end: number): boolean {
  for (let i = from; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** How many tasks start with each tracker key: a key is an id only while it names one task. */
export class KeyCount {
  private readonly n = new Map<string, number>();

  add(src: ByteString, s: Seen): void {
    this.addText(src, s.text[0], s.text[1]);
  }

  /** Count the key the text [start, end) starts with, if any. */
  addText(src: ByteString, start: number, end: number): void {
    const key = trackerKey(src, start, end);
    if (key !== null) this.n.set(key, (this.n.get(key) ?? 0) + 1);
  }

  idOf(src: ByteString, s: Seen): string {
    const key = trackerKey(src, s.text[0], s.text[1]);
    return taskId(src, s.text[0], s.text[1], key, key !== null && this.n.get(key) === 1);
  }
}

/** Every task with its id, in file order. */
export function listTasks(src: ByteString): Task[] {
  const all: Seen[] = [];
  const keys = new KeyCount();
  walk(src, (s) => {
    all.push(s);
    keys.add(src, s);
  });
  return all.map((s) => toTask(src, s.t, keys.idOf(src, s)));
}

/** The id of one task of the board. A keyed text pays for a look at the rest of the board only when its key appears elsewhere. */
export function idOf(src: ByteString, s: Seen): string {
  const key = trackerKey(src, s.text[0], s.text[1]);
  if (key === null) return taskId(src, s.text[0], s.text[1], null, false);
  const first = src.indexOf(key);
  const elsewhere = first !== s.text[0] || src.indexOf(key, s.text[0] + key.length) >= 0;
  if (!elsewhere) return key;
  let n = 0;
  walk(src, (o) => {
    if (trackerKey(src, o.text[0], o.text[1]) === key) n++;
    return n > 1;
  });
  return taskId(src, s.text[0], s.text[1], key, n === 1);
}

/** The task as the library shows it, with its id. */
export function taskOf(src: ByteString, s: Seen): Task {
  return toTask(src, s.t, idOf(src, s));
}

/**
 * Every task that answers to `id` (see answersTo), in file order; `enough`
 * may end a search by hash at a match (the first one that will do). A
 * search for a key finds them all, and stops past the key's last appearance in the file.
 */
export function lookup(src: ByteString, id: string, enough?: (s: Seen) => boolean): { form: 'key' | 'hash' | null; found: Seen[] } {
  const form = idForm(id);
  const found: Seen[] = [];
  if (form === null) return { form, found };
  const last = form === 'key' ? src.lastIndexOf(id) : src.length;
  if (last < 0) return { form, found };
  walk(src, (s) => {
    if (s.t.start > last) return true;
    if (!answersTo(src, s.text[0], s.text[1], id, form)) return false;
    found.push(s);
    // For a key every match counts: whether it names one task decides what it means.
    return form === 'hash' && (enough?.(s) ?? false);
  });
  return { form, found };
}

/** Do these tasks all have one text (exact duplicates, interchangeable)? */
export function sameText(src: ByteString, tasks: readonly Seen[]): boolean {
  const first = src.slice(tasks[0]!.text[0], tasks[0]!.text[1]);
  return tasks.every((s) => src.slice(s.text[0], s.text[1]) === first);
}
