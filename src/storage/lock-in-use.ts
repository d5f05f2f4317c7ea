import { flockProvider } from './flock/choose.js';

/** The lock this process takes on a markdown board, and where its flock(2) comes from; `error` when none can be taken. */
export interface LockInUse {
  kind: 'flock' | 'mkdir' | 'none';
  provider?: 'fs-ext' | 'koffi';
  /** Set by MDCLAIM_LOCK (or the board's `lock` option), not chosen. */
  set: boolean;
  error?: string;
}

/**
 * Which lock a board opened now would take, as chooseLock decides it: the
 * setting (`wanted`, else MDCLAIM_LOCK), else flock(2) through the first
 * provider that loads. Never throws: what fails is said in `error`.
 */
export function lockInUse(wanted: string | undefined = process.env['MDCLAIM_LOCK'] || undefined): LockInUse {
  const set = wanted !== undefined;
  if (wanted === 'none') return { kind: 'none', set };
  if (wanted === 'mkdir' || wanted === 'proper-lockfile') return { kind: 'mkdir', set };
  if (wanted !== undefined && wanted !== 'flock') return { kind: 'none', set, error: `unknown lock "${wanted}" in MDCLAIM_LOCK (expected flock or mkdir)` };
  try {
    return { kind: 'flock', provider: flockProvider().name, set };
  } catch (err) {
    return { kind: 'flock', set, error: (err as Error).message };
  }
}

/** The lock in a few words: `flock(2) through fs-ext`, `mkdir (MDCLAIM_LOCK=mkdir)`, `none loads`. */
export function lockName(l: LockInUse): string {
  if (l.error !== undefined) return l.kind === 'flock' ? 'flock(2), but no provider loads' : 'unknown';
  if (l.kind === 'flock') return `flock(2) through ${l.provider}`;
  return `${l.kind} (MDCLAIM_LOCK=${l.kind})`;
}
