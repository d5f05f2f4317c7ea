import { resolve } from 'node:path';
import { usage } from '../errors.js';
import { isValidBy } from '../format/marker.js';
import { parseDuration, parseLease } from '../board/duration.js';
import { heartbeatEvery } from './heartbeat.js';
import type { RunnerBoard, RunOptions, WorktreeOptions } from './types.js';
import { settleWorktree } from './worktree/options.js';
import { fromRunnerDir } from './program.js';

/** The options of one run, checked and with every default filled in. */
export interface Settings {
  command: readonly string[];
  by: string | undefined;
  /** The lease to claim with; undefined leaves it to the board. */
  lease: string | number | undefined;
  leaseMs: number | undefined;
  tags: readonly string[] | undefined;
  section: string | undefined;
  loop: boolean;
  intervalMs: number;
  concurrency: number;
  max: number;
  untilSettled: boolean;
  graceMs: number;
  failOnSignal: boolean;
  commit: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  file: string | undefined;
  prefixOutput: boolean;
  retries: number;
  retryDelayMs: number;
  maxAttempts: number | undefined;
  /** Each task in its git worktree; undefined: in `cwd`. */
  worktree: WorktreeOptions | undefined;
}

/** Check every option before anything is claimed: a bad one is USAGE naming it. */
export function settle(board: RunnerBoard, o: RunOptions): Settings {
  if (o === null || typeof o !== 'object') throw usage('run: options must be an object');
  const command = o.command;
  if (!Array.isArray(command) || command.length === 0 || command.some((a) => typeof a !== 'string') || command[0] === '') {
    throw usage('run: command must be a non-empty array of strings (the program, then its arguments)');
  }
  if (o.by !== undefined && (typeof o.by !== 'string' || !isValidBy(o.by))) throw usage(`by must be 1–64 of [A-Za-z0-9._:@-], got "${String(o.by)}"`);
  const lease = o.lease;
  const leaseMs = lease === undefined ? undefined : parseLease(lease, 'lease');
  if (leaseMs !== undefined) heartbeatEvery(leaseMs);
  const concurrency = count(o.concurrency ?? 1, 'concurrency');
  const untilSettled = o.untilSettled ?? false;
  const loop = (o.loop ?? false) || untilSettled;
  // One pass takes as many tasks as may run at once; a loop has no limit unless given one.
  const max = o.max === undefined ? (loop ? Infinity : concurrency) : o.max === Infinity ? Infinity : count(o.max, 'max');
  const intervalMs = parseDuration(o.interval ?? '5s', 'interval');
  if (intervalMs <= 0) throw usage('interval must be more than 0');
  if (o.tags !== undefined && (!Array.isArray(o.tags) || o.tags.some((t) => typeof t !== 'string' || t === ''))) throw usage('tags must be an array of non-empty strings');
  if (o.section !== undefined && typeof o.section !== 'string') throw usage('section must be a string');
  const retries = o.retries === undefined || o.retries === 0 ? 0 : count(o.retries, 'retries');
  const maxAttempts = o.maxAttempts === undefined ? (retries > 0 ? retries + 1 : undefined) : count(o.maxAttempts, 'maxAttempts');
  const cwd = resolve(o.cwd ?? process.cwd());
  const worktree = settleWorktree(o.worktree);
  return {
    // In a worktree, a relative program path still means what it meant here.
    command: worktree === undefined ? command : fromRunnerDir(command, cwd),
    by: o.by,
    lease,
    leaseMs,
    tags: o.tags,
    section: o.section,
    loop,
    intervalMs,
    concurrency,
    max,
    untilSettled,
    graceMs: parseDuration(o.grace ?? '10s', 'grace'),
    failOnSignal: o.failOnSignal ?? false,
    commit: o.commit ?? true,
    cwd,
    env: o.env ?? process.env,
    file: boardFile(board.handOff),
    prefixOutput: o.prefixOutput ?? concurrency > 1,
    retries,
    retryDelayMs: parseDuration(o.retryDelay ?? '30s', 'retryDelay'),
    maxAttempts,
    worktree,
  };
}

function count(n: unknown, name: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw usage(`${name} must be a whole number of at least 1, got ${String(n)}`);
  return n;
}

/** A file path made absolute (the command may change directory); a URL as it is. */
function boardFile(path: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : resolve(path);
}
