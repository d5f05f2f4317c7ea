import { recordAround } from '../runner/worktree/record.js';
import { one, type Parsed } from './args.js';

/**
 * The board a command works on: --file, else MDCLAIM_FILE, else, inside a
 * worktree `run --worktree` made, the board the runner used (its record),
 * else ./tasks.md. A worktree's own copy of tasks.md is stale once the board
 * is committed, or missing when it is ignored: its commands, hooks and
 * doctor read the board its tasks were claimed from.
 */
export function boardLocation(p: Parsed): string {
  return one(p, 'file') ?? process.env['MDCLAIM_FILE'] ?? recordAround(process.cwd())?.board ?? './tasks.md';
}
