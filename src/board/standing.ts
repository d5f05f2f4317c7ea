import type { Task } from '../format/task.js';
import { blockerOf, cutoff, isLapsed, ownLine, taskCandidate, taskHolds, taskMarker, type AfterBlocker, type Blocker, type Cutoff, type TaskHold } from './claimable.js';
import { dependencies, type Dependencies } from './after.js';
import { attemptsOfTask } from './park.js';
import type { HeldPath } from './path-types.js';
import { textRefusal } from './unclaimable.js';
import { selectTasks, type TaskFilter } from './select.js';
import type { TaskBoard } from './types.js';

// The claimable rules (claimable.ts) read from tasks as every board's list()
// returns them, for views that see a board only through its interface.

/** Where a claim stands: live, past its own lease, or an ADW claim with no time (it never lapses by itself). */
export type ClaimState = 'live' | 'lapsed' | 'untimed';

/**
 * A board's answer for one task: null when it may be claimed now, else what
 * stands in the way (blockerOf), naming tasks by id so that every board gives
 * the same answer in the same words.
 */
export type TaskBlocker = Blocker<string, HeldPath, AfterTask>;

/** A task another waits for (`{after: …}`), as a blocker names it: its id, text and how it stands. */
export interface AfterTask {
  id: string;
  text: string;
  status: Task['status'];
  by?: string;
}

/** A claimed task's state at `nowMs` (isLapsed: by its own lease); null for a task that is not claimed. */
export function claimState(t: Task, nowMs: number, now: Cutoff = cutoff(nowMs)): ClaimState | null {
  if (t.status !== 'claimed') return null;
  if (t.claimedAt === undefined) return 'untimed';
  return isLapsed(taskMarker(t), now) ? 'lapsed' : 'live';
}

/**
 * The one claimable rule (blockerOf) for every task of a board read whole, in
 * board order, as the file board decides it: sections as walk takes them (a
 * run of tasks under one heading), holds as taskHolds finds them.
 */
export function answers(tasks: readonly Task[], now: Cutoff, holds: readonly TaskHold[] = taskHolds(tasks, now), deps: Dependencies | null = dependencies(tasks)): (TaskBlocker | null)[] {
  let section: string | undefined;
  let notDone: Task | null = null;
  return tasks.map((t, i) => {
    if (i === 0 || t.section !== section) {
      section = t.section;
      notDone = null;
    }
    const above = notDone;
    const candidate = taskCandidate<Task, Task>(t, now, holds, { above: () => above, after: () => afterOf(deps, i, tasks) });
    if (t.status !== 'done') notDone ??= t;
    return named(blockerOf(candidate, now));
  });
}

/**
 * A board's answer worked out but for the task's own line (task_view's
 * blocker), with that rule put first as blockerOf puts it (ownLine): a task
 * its text keeps from being claimed is claimable by no one until the line is
 * fixed, whatever else stands in its way now.
 */
export function withOwnLine(t: Pick<Task, 'status' | 'text'>, b: TaskBlocker | null): TaskBlocker | null {
  return taskLine(t) ?? b;
}

/** blockerOf's first case for a task: its own line, which no one can claim as it is, and why; null for a finished task or a line that may be claimed. */
export function taskLine(t: Pick<Task, 'status' | 'text'>): { kind: 'line'; reason: string } | null {
  return ownLine(t.status, () => textRefusal(t.text));
}

/** The after rule's answer for task `i`, the task waited for as itself. */
function afterOf(deps: Dependencies | null, i: number, tasks: readonly Task[]): AfterBlocker<Task> | null {
  const a = deps?.answer(i) ?? null;
  return a?.kind === 'wait' ? { kind: 'wait', task: tasks[a.task]! } : a;
}

/** A task waited for, as a blocker names it. */
export function afterTask(t: Pick<Task, 'id' | 'text' | 'status' | 'by'>): AfterTask {
  return { id: t.id, text: t.text, status: t.status, ...(t.by === undefined ? {} : { by: t.by }) };
}

/** A blocker with its tasks named by id, as a board answers. */
function named(b: Blocker<Task, TaskHold, Task> | null): TaskBlocker | null {
  if (b?.kind === 'above') return { kind: 'above', task: b.task.id };
  if (b?.kind === 'after') return { kind: 'after', task: afterTask(b.task) };
  if (b?.kind === 'path') return { kind: 'path', hold: heldPath(b.hold) };
  return b;
}

/** A hold as the path commands show it. */
export function heldPath(h: TaskHold): HeldPath {
  return { path: h.path, mode: h.mode, task: h.task.id, ...(h.task.by === undefined ? {} : { by: h.task.by }), ...(h.since === undefined ? {} : { since: h.since }), kind: h.kind };
}

/** Does a blocker hold back a task that waits (open or `[⏰]`)? What a view lists as blocked. */
export function waits(t: Task, b: TaskBlocker | null): b is Extract<TaskBlocker, { kind: 'path' | 'above' | 'after' | 'retry' }> {
  return (t.status === 'open' || t.status === 'blocked') && (b?.kind === 'path' || b?.kind === 'above' || b?.kind === 'after' || b?.kind === 'retry');
}

/**
 * The first instant after `nowMs` at which the clock alone may change an
 * answer: a timed claim lapsing (and letting go of its paths), a retry's time
 * coming. Until then a board's answers, read at `nowMs`, stand.
 */
export function answersChangeAt(tasks: readonly Task[], nowMs: number): number {
  let at = Infinity;
  for (const t of tasks) {
    const when = t.status === 'claimed' ? t.expiresAt : t.notBefore;
    const ms = when === undefined ? NaN : Date.parse(when);
    if (ms > nowMs && ms < at) at = ms;
  }
  return at;
}

/** What a listing adds to a task: whether it may be claimed now, how its claim stands, or what holds it back. */
export interface Standing {
  /** May it be claimed now (the board's own answer: what `claim` of it would do)? */
  claimable: boolean;
  /** A timed claim: milliseconds until it lapses (0 or less once lapsed). */
  timeLeftMs?: number;
  /** A timed claim: has it outlived its lease? */
  lapsed?: boolean;
  /** A waiting task a live claim on another task blocks by a path it declares: the first such hold. */
  blockedBy?: HeldPath;
  /** How many claims the task has had, when any: what its line records, else what its status implies (1 claimed or finished). */
  attempts?: number;
  /** A retry whose time has not come: milliseconds until it may be claimed. */
  retryInMs?: number;
  /** A task its own line keeps from being claimed, claimed or not: why (fix the line to claim it); what `claim` of it refuses first. */
  refused?: string;
  /** A waiting task whose first task waited for (`{after: …}`) is not done: that task, and how it stands. */
  waitsFor?: AfterTask;
  /** What its `{after: …}` names: each task with how it stands, or an item that names none to wait for, with why. */
  after?: AfterEntry[];
}

/** One task a task waits for, and how it stands; or an item of its `{after: …}` that names none, and why. */
export type AfterEntry = { id: string; status: Task['status']; by?: string } | { id: string; problem: string };

/** What each task's `{after: …}` names (see Standing.after); none when no task waits for anything. */
export function afterEntries(tasks: readonly Task[], deps: Dependencies | null = dependencies(tasks)): (AfterEntry[] | undefined)[] {
  return tasks.map((_, i) => {
    if (deps === null || !deps.waits(i)) return undefined;
    return deps.resolved(i).flatMap((r): AfterEntry[] => {
      if ('problem' in r) return [{ id: r.ref, problem: r.problem }];
      return r.tasks.map((j) => {
        const d = tasks[j]!;
        return { id: d.id, status: d.status, ...(d.by === undefined ? {} : { by: d.by }) };
      });
    });
  });
}

/** How each task stands at `nowMs`, by the board's answers (see TaskBoard.survey), so a listing and a claim never disagree. */
function standings(tasks: readonly Task[], nowMs: number, blockers: readonly (TaskBlocker | null)[] = answers(tasks, cutoff(nowMs))): Standing[] {
  const now = cutoff(nowMs);
  const after = afterEntries(tasks);
  return tasks.map((t, i) => {
    const attempts = attemptsOfTask(t);
    const b = blockers[i] ?? null;
    const waited = after[i];
    return { claimable: b === null, ...standing(t, nowMs, now, b), ...(attempts > 0 ? { attempts } : {}), ...(waited === undefined ? {} : { after: waited }) };
  });
}

function standing(t: Task, nowMs: number, now: Cutoff, b: TaskBlocker | null): Omit<Standing, 'attempts' | 'claimable'> {
  const state = claimState(t, nowMs, now);
  // Its own line comes first, as a claim of it says (blockerOf), on a claim as on a task that waits.
  const refused = b?.kind === 'line' ? { refused: b.reason } : {};
  if (state !== null) {
    if (state === 'untimed' || t.expiresAt === undefined) return refused;
    return { timeLeftMs: Date.parse(t.expiresAt) - nowMs, lapsed: state === 'lapsed', ...refused };
  }
  if (b?.kind === 'line') return refused;
  if (!waits(t, b)) return {};
  if (b.kind === 'retry') return { retryInMs: Date.parse(b.notBefore) - nowMs };
  if (b.kind === 'path') return { blockedBy: b.hold };
  if (b.kind === 'after') return { waitsFor: b.task };
  return {};
}

/**
 * The tasks a filter selects, each with how it stands (standings), judged on
 * the whole board as the board itself answers (survey): a claim outside the
 * filter can block a task inside it. What `list` prints and MCP's list returns.
 */
export async function listStanding(board: Pick<TaskBoard, 'survey'>, filter: TaskFilter, statusName?: string, nowMs = Date.now()): Promise<Listed[]> {
  const { tasks: all, blockers } = await board.survey();
  const every = standings(all, nowMs, blockers);
  const at = new Map(all.map((t, i) => [t, i]));
  return selectTasks(all, filter, statusName).map((task) => ({ task, standing: every[at.get(task)!]! }));
}

/** A task as a listing shows it: the task and how it stands. */
export interface Listed {
  task: Task;
  standing: Standing;
}

/** One listed task as JSON shows it (`list --json`, MCP's list): its fields, then its standing's. */
export const listedJson = ({ task, standing }: Listed): Task & Standing => ({ ...task, ...standing });
