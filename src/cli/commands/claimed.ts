import { DEFAULT_LEASE } from '../../board/board.js';
import { parseDuration } from '../../board/duration.js';
import type { Task } from '../../format/task.js';
import { has, one, type Parsed } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson, type Output } from '../output.js';

/** The `--lease` value, checked before anything is written. */
export function lease(p: Parsed): string {
  const value = one(p, 'lease') ?? DEFAULT_LEASE;
  parseDuration(value, '--lease');
  return value;
}

export function expires(task: Task, leaseValue: string): string {
  const at = Date.parse(task.claimedAt!) + parseDuration(leaseValue);
  return new Date(at).toISOString().slice(0, 19) + 'Z';
}

/** Print a claimed task the way next/claim do. */
export function printClaimed(task: Task, p: Parsed, io: Output, leaseValue: string): number {
  if (has(p, 'json')) printJson(io, { task });
  else if (has(p, 'quiet')) io.out(task.id);
  else io.out(`claimed ${task.id} by ${task.by} (lease expires ${expires(task, leaseValue)})`);
  return EXIT.OK;
}
