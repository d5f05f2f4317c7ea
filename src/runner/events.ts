import { passedOverLine } from '../board/unclaimable.js';
import type { StopSignal } from './types.js';

/** What a runner reports, one event at a time; `--events FILE` writes each as a JSON line. */
export type RunEvent = { at: string } & (
  | { event: 'start'; by: string }
  | { event: 'claimed'; id: string; text: string; by: string; claimedAt: string; expiresAt: string }
  | { event: 'heartbeat'; id: string; claimedAt: string; expiresAt: string }
  /** A task next passed over because its own line keeps it from being claimed (told once a run). */
  | { event: 'passed over'; id: string; text: string; reason: string }
  /** A heartbeat or finish write failed for a reason that may pass (lock timeout, I/O); it is retried while the lease lasts. */
  | { event: 'retry'; id: string; error: string }
  /** The claim is no longer this runner's: the command is stopped and nothing is written. */
  | { event: 'lost'; id: string; reason: string; ms: number }
  /** A heartbeat found the task ended by the command itself (done or failed by this runner's `by`): the runner waits for it to exit. */
  | { event: 'ended'; id: string; status: 'done' | 'failed' }
  /** The task's worktree, made (`created`) or reused, before its command starts. */
  | { event: 'worktree'; id: string; path: string; branch: string; base: string; created: boolean; existingBranch?: true }
  /** Another holder's setup (its runner frozen or killed) still runs in the worktree: this one waits for it to end before its own. */
  | { event: 'setup waits'; id: string; path: string; pgid: number }
  /** The command ended well and left changes uncommitted in its worktree: kept, and told (`lost`: the claim went before they could be committed). */
  | { event: 'uncommitted'; id: string; path: string; changes: number; refused?: string; lost?: true }
  | { event: 'exit'; id: string; code: number | null; signal: string | null }
  | { event: 'done'; id: string; commit?: string; ms: number }
  | { event: 'failed'; id: string; reason: string; ms: number }
  /** The command failed and the task went back to be tried again: the attempt that failed, and when a claim may take it. */
  | { event: 'retrying'; id: string; reason: string; attempts: number; notBefore: string; ms: number }
  | { event: 'released'; id: string; ms: number }
  /** A looping runner with nothing running found nothing to claim: it polls until work appears. */
  | { event: 'idle' }
  /** The first claim after `idle`. */
  | { event: 'awake' }
  | { event: 'stopping'; signal: StopSignal; running: number }
  | { event: 'stop'; stoppedBy: string }
);

type Without<T> = T extends unknown ? Omit<T, 'at'> : never;
export type RunEventBody = Without<RunEvent>;

/** Stamp an event with the time it happened. */
export function stamp(body: RunEventBody, now = Date.now()): RunEvent {
  return { at: new Date(now).toISOString(), ...body } as RunEvent;
}

/** `850ms`, `12s`, `3m12s`, `2h05m`: how long a task ran, for a progress line. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

/** The progress line for an event (stderr), or null for the events too frequent to print. */
export function describe(e: RunEvent): string | null {
  switch (e.event) {
    case 'start':
      return `running as ${e.by}`;
    case 'claimed':
      return `claimed ${e.id} "${e.text}" (lease expires ${e.expiresAt})`;
    case 'passed over':
      return passedOverLine({ task: e, reason: e.reason });
    case 'worktree':
      return `${e.id} in ${e.path} (branch ${e.branch}${!e.created ? '' : e.existingBranch ? `, using existing branch ${e.branch}` : `, made from ${e.base.slice(0, 7)}`})`;
    case 'setup waits':
      return `${e.id} waits for the setup an earlier holder started in ${e.path} (process group ${e.pgid}) to end`;
    case 'uncommitted':
      if (e.lost) return `${e.id} left ${e.changes} uncommitted change${e.changes > 1 ? 's' : ''} in ${e.path}: not committed, the claim was lost first`;
      return `${e.id} left ${e.changes} uncommitted change${e.changes > 1 ? 's' : ''} in ${e.path}${e.refused === undefined ? '' : ` (git commit refused: ${e.refused})`}: kept, not in the commit recorded`;
    case 'retry':
      return `${e.id}: write failed, retrying while the lease lasts: ${e.error}`;
    case 'lost':
      return `lost ${e.id} after ${formatElapsed(e.ms)}: ${e.reason}; stopped the command, wrote nothing`;
    case 'done':
      return `done ${e.id} in ${formatElapsed(e.ms)}${e.commit ? ` at ${e.commit}` : ''}`;
    case 'failed':
      return `failed ${e.id} after ${formatElapsed(e.ms)}: ${e.reason}`;
    case 'retrying':
      return `failed ${e.id} after ${formatElapsed(e.ms)}: ${e.reason}; attempt ${e.attempts} given back, to be retried from ${e.notBefore}`;
    case 'released':
      return `released ${e.id} after ${formatElapsed(e.ms)}`;
    case 'stopping':
      return `${e.signal === 'SIGPIPE' ? 'stdout closed' : e.signal}: stopping${e.running > 0 ? `, waiting for ${e.running} command${e.running > 1 ? 's' : ''}` : ''}`;
    default:
      return null;
  }
}
