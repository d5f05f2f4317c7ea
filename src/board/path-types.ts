import type { PathMode } from '../format/paths.js';
import type { Task } from '../format/task.js';

// Path locks as every board offers them (the file board in src/file/; a database board
// implements the same methods over a table of locks), so callers never ask
// which board they hold.

/** A path held now by a live claim: declared on its task's line, or locked while working. */
export interface HeldPath {
  /** Normalised, relative to the board's directory; a directory ends in `/`. */
  path: string;
  mode: PathMode;
  /** The id of the task whose claim holds it. */
  task: string;
  /** Its holder; absent for an unnamed ADW claim (`[🟡]`). */
  by?: string;
  /** When it was locked; for a declared path, the claim's time. */
  since?: string;
  kind: 'declared' | 'locked';
}

/** The paths a caller names: to write (exclusive) and to read (shared with other readers). */
export interface PathRequest {
  writes?: readonly string[];
  reads?: readonly string[];
}

export interface LockPathsOptions extends PathRequest {
  by: string;
  /** Fence the write to this very claim, as with the other holder writes. */
  claimedAt?: string;
}

export interface UnlockPathsOptions {
  by: string;
  claimedAt?: string;
  /** The paths to unlock; all of the task's locks when absent. */
  paths?: readonly string[];
}

export interface CheckPathsOptions extends PathRequest {
  by: string;
}

export interface PathLocking {
  /** Lock paths for the task the caller holds (live claims only); CONFLICT naming the holder when one is taken. */
  lockPaths(id: string, options: LockPathsOptions): Promise<Task>;
  /** Let go of some or all of the task's locks (never of its declared paths). */
  unlockPaths(id: string, options: UnlockPathsOptions): Promise<Task>;
  /** Every path held now, in board order. */
  paths(): Promise<HeldPath[]>;
  /** Resolve with the caller's holds that overlap, when every claim in the way is the caller's; else CONFLICT naming the holder. */
  checkPaths(options: CheckPathsOptions): Promise<HeldPath[]>;
}

/** What a task line declares, normalised (a path that does not normalise is left out: see declaredOf). */
export interface Paths {
  writes: string[];
  reads: string[];
}
