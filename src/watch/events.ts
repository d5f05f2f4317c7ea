import { claimState } from '../board/standing.js';
import type { Task } from '../format/task.js';

// What happened between two readings of a board, told from the difference:
// a file board may keep no history (docs/FORMAT.md), and a watcher sees every board the same way.

export interface WatchEvent {
  /** When the change was seen (epoch ms). */
  at: number;
  event: 'added' | 'claimed' | 'taken over' | 'done' | 'failed' | 'released' | 'retried' | 'reaped';
  id: string;
  text: string;
  by?: string;
  /** Who held it before (taken over, reaped, released, retried). */
  from?: string;
  /** A retry's wait: no claim before this instant (retried). */
  notBefore?: string;
  reason?: string;
  commit?: string;
}

/**
 * The events that turn `before` into `after`, seen at `nowMs`, in board
 * order. A claim that went back to open with a new not-before time was given
 * back for a retry; else it was reaped when it had lapsed by then, else
 * released (a holder may release a lapsed claim too: the difference cannot
 * tell). A renewal by the same holder is no event.
 */
export function diffEvents(before: readonly Task[], after: readonly Task[], nowMs: number): WatchEvent[] {
  const old = new Map<string, Task>();
  for (const t of before) if (!old.has(t.id)) old.set(t.id, t);
  const out: WatchEvent[] = [];
  const seen = new Set<string>();
  for (const t of after) {
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    const e = change(old.get(t.id), t, nowMs);
    if (e) out.push({ at: nowMs, id: t.id, text: t.text, ...e });
  }
  return out;
}

type Change = Omit<WatchEvent, 'at' | 'id' | 'text'>;

function change(was: Task | undefined, now: Task, nowMs: number): Change | null {
  if (was === undefined) return { event: 'added' };
  if (was.status === now.status) {
    if (now.status !== 'claimed' || was.by === now.by) return null;
    return { event: 'taken over', ...by(now.by), ...from(was.by) };
  }
  switch (now.status) {
    case 'claimed':
      return { event: 'claimed', ...by(now.by) };
    case 'done':
      return { event: 'done', ...by(now.by ?? was.by), ...(now.commit === undefined ? {} : { commit: now.commit }) };
    case 'failed':
      return { event: 'failed', ...by(now.by ?? was.by), ...(now.reason === undefined ? {} : { reason: now.reason }) };
    default:
      if (was.status !== 'claimed') return null;
      if (now.notBefore !== undefined && now.notBefore !== was.notBefore) return { event: 'retried', ...from(was.by), notBefore: now.notBefore };
      return { event: claimState(was, nowMs) === 'lapsed' ? 'reaped' : 'released', ...from(was.by) };
  }
}

const by = (who: string | undefined) => (who === undefined ? {} : { by: who });
const from = (who: string | undefined) => (who === undefined ? {} : { from: who });
