import { bytes, type ByteString } from '../format/bytes.js';
import { textHash, trackerKey } from '../format/id.js';
import { locksAfter, type PathLock } from '../format/locks.js';
import { lineFields, type LineFields, type Task } from '../format/task.js';
import type { Changed, Plan } from './plan.js';
import type { HistoryEvent } from './types.js';

// What a file board's change records, worked out from the plan every
// transition makes: checkReading has proved that its `changes` (each task as
// it read, and as it will read) and `added` are exactly what the write does,
// so the events made here are the changes made, no more and no fewer. The
// vocabulary and fields are the PostgreSQL board's (src/pg/history-sql.ts).

/** A journal line before it is read back: an event without its place, with the text's hash beside the id. */
export type Journalled = Omit<HistoryEvent, 'seq'> & { hash: string };

/** The operations that change a file board, as its journal names them (`via`). */
export type Via = 'next' | 'claim' | 'heartbeat' | 'done' | 'fail' | 'release' | 'retry' | 'reopen' | 'reap' | 'add' | 'lock' | 'unlock' | 'edit';

type State = Pick<LineFields, 'status' | 'by' | 'claimedAt' | 'lease' | 'commit' | 'reason' | 'text'> & { locks?: readonly PathLock[] };

/** The journal lines of a transition's plan, made through `via` at `at` (epoch ms); `by`: who asked, for a reopen. */
export function planJournal(src: ByteString, plan: Plan<unknown>, via: Via, at: number, by?: string): string[] {
  if (plan.edits.length === 0) return [];
  const when = new Date(at).toISOString();
  const out: Journalled[] = [];
  for (const c of plan.changes) out.push(...changeEvents(src, c, via, when, by));
  if (plan.added) out.push({ ...idOf(bytes(plan.added.text)), at: when, event: 'added', via, text: plan.added.text });
  return out.map(journalLine);
}

/** One event as its journal line: JSON, its fields in one order (when, what, which task, then the rest). */
function journalLine(e: Journalled): string {
  const { at, event, id, hash, via, text, ...rest } = e;
  return JSON.stringify({ at, event, id, hash, ...rest, via, text });
}

/** The events of one task's change: none for a renewal (a file board does not journal heartbeats). */
function changeEvents(src: ByteString, c: Changed, via: Via, at: string, by?: string): Journalled[] {
  const was: State = { ...lineFields(src, c.seen.t), locks: locksAfter(src, c.seen.t.end) };
  const ids = idOf(src, c.seen.text[0], c.seen.text[1]);
  return transitionEvents(was, c.want, via, by).map((e) => ({ at, ...e, ...ids, ...counted(c.want.attempts), via, text: c.want.text }));
}

type Made = Omit<Journalled, 'at' | 'id' | 'hash' | 'via' | 'text'>;

/**
 * What a change of one task from `was` to `now` records, through `via`:
 * the one rule for every write of a file board, an edit's included.
 */
function transitionEvents(was: State, now: State, via: Via, by?: string): Made[] {
  const out: Made[] = [];
  const held = was.status === 'claimed';
  // A renewal (a heartbeat, the holder's own path locks, an edit of them) keeps the claim; any other claim of a claimed task takes it over.
  const renewed = held && now.status === 'claimed' && (via === 'heartbeat' || via === 'lock' || via === 'unlock'
    || (via === 'edit' && now.by === was.by && now.claimedAt === was.claimedAt));
  if (now.status === 'claimed') {
    if (!renewed) out.push({ event: held ? 'taken over' : 'claimed', ...opt('by', now.by), ...(held ? opt('from', was.by) : {}), ...claimOf(now) });
  } else if (now.status === 'done' && was.status !== 'done') {
    out.push({ event: 'done', ...opt('by', was.by ?? now.by), ...opt('commit', now.commit) });
  } else if (now.status === 'failed' && was.status !== 'failed') {
    const parked = held && via !== 'fail' && via !== 'edit';
    if (parked) out.push({ event: 'parked', ...opt('from', was.by), ...claimOf(was), ...opt('reason', now.reason) });
    else out.push({ event: 'failed', ...opt('by', was.by ?? now.by), ...opt('reason', now.reason) });
  } else if ((now.status === 'open' || now.status === 'blocked') && was.status !== 'open' && was.status !== 'blocked') {
    if (!held) out.push({ event: 'released', ...opt('by', by), ...opt('from', was.by), ...opt('commit', was.commit), ...opt('reason', was.reason) });
    else if (via === 'reap') out.push({ event: 'reaped', ...opt('from', was.by), ...claimOf(was) });
    else out.push({ event: via === 'retry' ? 'retried' : 'released', ...opt('by', was.by) });
  }
  if (renewed) out.push(...lockEvents(was.locks ?? [], now.locks ?? [], now.by));
  return out;
}

/** Path locks taken and let go by the holder `by` (a claim's end drops its locks with it: no event of their own). */
function lockEvents(before: readonly PathLock[], after: readonly PathLock[], by: string | undefined): Made[] {
  const key = (l: PathLock) => `${l.mode}:${l.path}`;
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  const taken = [...has].filter((k) => !had.has(k));
  const freed = [...had].filter((k) => !has.has(k));
  const out: Made[] = [];
  if (taken.length > 0) out.push({ event: 'locked', ...opt('by', by), paths: taken });
  if (freed.length > 0) out.push({ event: 'unlocked', ...opt('by', by), paths: freed });
  return out;
}

/** The attempts a line counts after an event, as the event carries them (none where the line counts none). */
function counted(attempts: number | undefined): { attempts?: number } {
  return attempts === undefined ? {} : { attempts };
}

function claimOf(s: State): Partial<Made> {
  return { ...opt('claimedAt', s.claimedAt), ...opt('lease', s.lease) };
}

function opt<K extends string>(k: K, v: string | undefined): { [P in K]?: string } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: string };
}

/** The journal's id of a text (its tracker key, else its hash: as a PostgreSQL board's history reads `coalesce(key, hash)`), and its hash. */
export function idOf(src: ByteString, start = 0, end = src.length): { id: string; hash: string } {
  const hash = textHash(src, start, end);
  return { id: trackerKey(src, start, end) ?? hash, hash };
}

/**
 * The journal lines of an edit, from the tasks before and after it: a task
 * whose text is new was added, one whose text is gone was removed (a changed
 * text is both), and one whose marker or locks changed made the event that
 * change makes (a hand-typed `[x]` is done, by whoever held it).
 */
export function editJournal(before: readonly Task[], after: readonly Task[], at: number): string[] {
  const when = new Date(at).toISOString();
  const left = new Map<string, Task[]>();
  for (const t of before) left.set(t.text, [...(left.get(t.text) ?? []), t]);
  const out: Journalled[] = [];
  const record = (t: Task, made: Made) => out.push({ at: when, ...made, ...idOf(bytes(t.text)), ...(made.event === 'removed' ? {} : counted(t.attempts)), via: 'edit', text: t.text });
  for (const t of after) {
    const was = left.get(t.text)?.shift();
    if (was === undefined) record(t, { event: 'added' });
    else for (const e of transitionEvents(was, t, 'edit')) record(t, e);
  }
  for (const gone of left.values()) for (const t of gone) record(t, { event: 'removed' });
  return out.map(journalLine);
}
