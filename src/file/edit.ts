import type { ByteString } from '../format/bytes.js';
import { named } from '../format/named.js';
import type { Status } from '../format/marker.js';
import type { Task } from '../format/task.js';
import type { Edit } from '../format/edit.js';
import type { Outcome } from '../storage/file-store.js';
import { merge3, type Conflict } from './merge.js';
import { listTasks } from '../board/walk.js';

/** A task (or line) the person's edit and the board both changed. */
export interface EditConflict {
  /** The task's id, when the line is a task. */
  id?: string;
  /** 1-based line on the board now (or in the person's copy, for a line only the copy has). */
  line: number;
  status?: Status;
  by?: string;
  message: string;
}

export type EditResult =
  /** `kept`: how many changes made on the board since the snapshot were kept. */
  | { merged: true; changed: boolean; kept: number }
  | { merged: false; conflicts: EditConflict[] };

/**
 * Apply a person's edit of a snapshot to the board as it is now (`src`,
 * read under the exclusive lock): a three-way merge, so that what others
 * did meanwhile stays. The markers the person typed are taken as typed.
 * On a conflict nothing is written.
 */
export function applyEdit(src: ByteString, snapshot: ByteString, mine: ByteString): Outcome<EditResult> & { edits: Edit[] } {
  const r = merge3(snapshot, mine, src);
  if (!r.ok) return { edits: [], result: { merged: false, conflicts: describe(r.conflicts, src, mine) } };
  if (r.merged === src) return { edits: [], result: { merged: true, changed: false, kept: r.theirs } };
  const moved = movedLocks(src, r.merged);
  if (moved.length > 0) return { edits: [], result: { merged: false, conflicts: moved } };
  // One edit of the bytes that differ, so a small change stays a small (perhaps in-place) write.
  let start = 0;
  while (start < src.length && start < r.merged.length && src.charCodeAt(start) === r.merged.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < src.length - start && tail < r.merged.length - start && src.charCodeAt(src.length - 1 - tail) === r.merged.charCodeAt(r.merged.length - 1 - tail)) tail++;
  const edit = { start, end: src.length - tail, bytes: r.merged.slice(start, r.merged.length - tail) };
  return { edits: [edit], result: { merged: true, changed: true, kept: r.theirs } };
}

/**
 * Lock lines that the merge would put under another claim than the one they
 * are under on the board: a lock line belongs to the claim on the task line
 * directly above it, so deleting or moving a task line (and not its lock
 * lines) would hand its locks to a neighbour. A claim is told by who made it
 * and when, so rewording its task keeps its locks; a lock line the person
 * typed is theirs to type.
 */
function movedLocks(src: ByteString, merged: ByteString): EditConflict[] {
  const keyOf = (l: { mode: string; path: string; since?: string }) => `${l.mode} ${l.path}${l.since === undefined ? '' : ` since ${l.since}`}`;
  const claimOf = (t: Task) => (t.status === 'claimed' ? `${t.by ?? ''} ${t.claimedAt ?? ''}` : '');
  const owners = new Map<string, Map<string, Task>>();
  for (const t of listTasks(src)) {
    for (const l of t.locks ?? []) {
      const byClaim = owners.get(keyOf(l)) ?? new Map<string, Task>();
      owners.set(keyOf(l), byClaim.set(claimOf(t), t));
    }
  }
  const out: EditConflict[] = [];
  for (const t of listTasks(merged)) {
    for (const l of t.locks ?? []) {
      const was = owners.get(keyOf(l));
      if (!was || was.has(claimOf(t))) continue;
      const from = [...was.values()][0]!;
      out.push({
        ...of(t),
        line: t.line,
        message: `the lock "🔒 ${keyOf(l)}" of ${named(from)} (${state(from)}) would sit under ${named(t)} (${state(t)}) once merged: move it with its task, or delete it`,
      });
    }
  }
  return out;
}

/** One entry per task the board changed in each conflicting place; a line number where no task is involved. */
function describe(conflicts: Conflict[], theirs: ByteString, mine: ByteString): EditConflict[] {
  const onBoard = byLine(listTasks(theirs));
  const inCopy = byLine(listTasks(mine));
  const out = new Map<string, EditConflict>();
  const add = (c: EditConflict) => out.set(c.message, c);
  for (const c of conflicts) {
    if (c.kind === 'reading') {
      const t = onBoard.get(c.theirs[0] + 1) ?? inCopy.get(c.mine[0] + 1);
      const what = t ? named(t) : `line ${c.mine[0] + 1} of your copy`;
      add({ ...of(t), line: t?.line ?? c.mine[0] + 1, message: `${what} would read differently once merged with the board's changes` });
      continue;
    }
    const tasks = c.changed.flatMap((i) => onBoard.get(i + 1) ?? []);
    for (const t of tasks) add({ ...of(t), line: t.line, message: `${named(t)} changed on the board meanwhile (${state(t)})` });
    if (tasks.length > 0) continue;
    const line = (c.changed[0] ?? c.theirs[0]) + 1;
    add({ line, message: c.changed.length > 0 ? `line ${line} changed on the board meanwhile` : `lines around line ${line} deleted on the board meanwhile` });
  }
  return [...out.values()];
}

function byLine(tasks: Task[]): Map<number, Task> {
  return new Map(tasks.map((t) => [t.line, t]));
}

function of(t: Task | undefined): Partial<EditConflict> {
  return t ? { id: t.id, status: t.status, ...(t.by === undefined ? {} : { by: t.by }) } : {};
}

/** What the board did to the task, as far as its marker says. */
function state(t: Task): string {
  const by = t.by ? ` by ${t.by}` : '';
  switch (t.status) {
    case 'claimed':
      return `claimed${by}`;
    case 'done':
      return `done${by}`;
    case 'failed':
      return `failed${by}`;
    default:
      return `now ${t.status}`;
  }
}
