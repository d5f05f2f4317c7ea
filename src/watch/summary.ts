import { passesFilter } from '../format/worktree-section.js';
import { cutoff, taskHolds } from '../board/claimable.js';
import { answers, claimState, waits, type AfterTask, type ClaimState, type TaskBlocker } from '../board/standing.js';
import { claimInstant } from '../format/claim-time.js';
import { formatClaimedAt, type Status } from '../format/marker.js';
import type { Task } from '../format/task.js';
import type { WatchEvent } from './events.js';
import type { HistoryEvent } from '../board/types.js';
import { historyStats, type HistoryStats } from './history-stats.js';

// What `status` prints once and `watch` keeps up to date: one pure function of
// a board's tasks, the clock and the events seen, so both say the same.

export interface Filter {
  tags?: readonly string[];
  section?: string;
}

export interface ClaimView {
  id: string;
  text: string;
  by?: string;
  claimedAt?: string;
  lease?: string;
  expiresAt?: string;
  state: ClaimState;
  /** How long it has been held (a timed claim). */
  heldMs?: number;
  /** Time left on its lease: negative once lapsed (a timed claim). */
  leftMs?: number;
}

export interface PathView {
  path: string;
  mode: 'write' | 'read';
  kind: 'declared' | 'locked';
  task: string;
  by?: string;
}

export type BlockedView =
  | { id: string; text: string; reason: 'path'; path: string; mode: 'write' | 'read'; task: string; by?: string }
  | { id: string; text: string; reason: 'above'; task: string }
  | { id: string; text: string; reason: 'after'; task: AfterTask }
  | { id: string; text: string; reason: 'retry'; notBefore: string };

export interface Summary {
  /** The clock the summary was made at (RFC 3339, UTC). */
  at: string;
  counts: Record<Status, number> & { total: number };
  /** Done of all per section, in board order (`null`: tasks above the first heading). */
  sections: { name: string | null; done: number; total: number }[];
  /** Every claim: lapsed first, then by time left, untimed last. */
  claims: ClaimView[];
  live: number;
  lapsed: number;
  untimed: number;
  /** The claim held longest (timed claims only). */
  oldestClaim: ClaimView | null;
  /** What live claims hold, in board order (of every task: a hold outside the filter still blocks inside it). */
  paths: PathView[];
  /** Waiting tasks that cannot be claimed now, and what is in the way. */
  blocked: BlockedView[];
  /** Failed tasks in board order, with their reasons. */
  failures: { id: string; text: string; by?: string; reason?: string }[];
  /** Done tasks per minute over the window, from the events seen; null when none were watched. */
  doneRate: { perMinute: number; done: number; windowMs: number } | null;
  /** Every task in view, in board order: may it be claimed now (the board's own answer)? */
  tasks: { id: string; status: Status; claimable: boolean }[];
  /** Durations and rates from the board's history (see history-stats.ts); null when it was not read. */
  history: HistoryStats | null;
}

const RATE_WINDOW_MS = 5 * 60_000;

/**
 * The summary of `tasks` at `nowMs`; `watchedSince` is when `events` began (for the done rate).
 * `blockers` are the board's answers for the tasks (TaskBoard.survey); without them, the file
 * board's rule decides at `nowMs`. `history` is the board's history of the last HISTORY_WINDOW_MS, when read.
 */
export function summarize(
  tasks: readonly Task[], nowMs: number, filter: Filter = {}, events?: readonly WatchEvent[], watchedSince?: number, blockers?: readonly (TaskBlocker | null)[],
  history?: readonly HistoryEvent[] | null,
): Summary {
  const now = cutoff(nowMs);
  const holds = taskHolds(tasks, now);
  const why = blockers ?? answers(tasks, now, holds);
  const inView = (t: Task) => passesFilter(t.section, t.tags, filter);

  const counts = { open: 0, blocked: 0, claimed: 0, done: 0, failed: 0, total: 0 };
  const sections: Summary['sections'] = [];
  const claims: ClaimView[] = [];
  const blocked: BlockedView[] = [];
  const failures: Summary['failures'] = [];
  const every: Summary['tasks'] = [];
  tasks.forEach((t, i) => {
    if (!inView(t)) return;
    const w = why[i] ?? null;
    every.push({ id: t.id, status: t.status, claimable: w === null });
    counts[t.status]++;
    counts.total++;
    const name = t.section ?? null;
    let s = sections.at(-1);
    if (s?.name !== name) sections.push((s = { name, done: 0, total: 0 }));
    s.total++;
    if (t.status === 'done') s.done++;
    if (t.status === 'claimed') claims.push(claimView(t, nowMs, now));
    if (t.status === 'failed') failures.push({ id: t.id, text: t.text, ...opt('by', t.by), ...opt('reason', t.reason) });
    if (!waits(t, w)) return;
    if (w.kind === 'path') blocked.push({ id: t.id, text: t.text, reason: 'path', path: w.hold.path, mode: w.hold.mode, task: w.hold.task, ...opt('by', w.hold.by) });
    else if (w.kind === 'above') blocked.push({ id: t.id, text: t.text, reason: 'above', task: w.task });
    else if (w.kind === 'after') blocked.push({ id: t.id, text: t.text, reason: 'after', task: w.task });
    else blocked.push({ id: t.id, text: t.text, reason: 'retry', notBefore: w.notBefore });
  });
  claims.sort(byUrgency);
  const timed = claims.filter((c) => c.heldMs !== undefined);
  const oldestClaim = timed.reduce<ClaimView | null>((a, c) => (a === null || c.heldMs! > a.heldMs! ? c : a), null);
  return {
    at: formatClaimedAt(nowMs),
    counts,
    sections,
    claims,
    live: claims.filter((c) => c.state === 'live').length,
    lapsed: claims.filter((c) => c.state === 'lapsed').length,
    untimed: claims.filter((c) => c.state === 'untimed').length,
    oldestClaim,
    paths: holds.map((h) => ({ path: h.path, mode: h.mode, kind: h.kind, task: h.task.id, ...opt('by', h.task.by) })),
    blocked,
    failures,
    doneRate: events === undefined ? null : doneRate(events, nowMs, watchedSince ?? nowMs),
    tasks: every,
    history: history ? historyStats(history, tasks, nowMs, inView, filter.section !== undefined || (filter.tags ?? []).length > 0) : null,
  };
}

function claimView(t: Task, nowMs: number, now: ReturnType<typeof cutoff>): ClaimView {
  const view: ClaimView = { id: t.id, text: t.text, ...opt('by', t.by), state: claimState(t, nowMs, now)!, ...opt('claimedAt', t.claimedAt), ...opt('lease', t.lease), ...opt('expiresAt', t.expiresAt) };
  // A claim time that names no instant gives the claim no age (as it never lapses).
  const at = t.claimedAt === undefined ? null : claimInstant(t.claimedAt);
  if (at !== null) view.heldMs = Math.max(0, nowMs - at);
  const ends = t.expiresAt === undefined ? null : claimInstant(t.expiresAt);
  if (ends !== null) view.leftMs = ends - nowMs;
  return view;
}

const RANK: Record<ClaimState, number> = { lapsed: 0, live: 1, untimed: 2 };

function byUrgency(a: ClaimView, b: ClaimView): number {
  return RANK[a.state] - RANK[b.state] || (a.leftMs ?? 0) - (b.leftMs ?? 0);
}

/** Done events per minute over the last RATE_WINDOW_MS, or since watching began when that is shorter. */
function doneRate(events: readonly WatchEvent[], nowMs: number, since: number): Summary['doneRate'] {
  const from = Math.max(nowMs - RATE_WINDOW_MS, since);
  const done = events.filter((e) => e.event === 'done' && e.at >= from).length;
  const windowMs = Math.max(nowMs - from, 1);
  return { perMinute: Math.round((done / windowMs) * 60_000 * 10) / 10, done, windowMs };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}
