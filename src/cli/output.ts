import { randomHex } from '../builtins.js';
import { usage } from '../errors.js';
import { jsonText } from '../format/printable.js';
import type { Task } from '../format/task.js';
import { has, one, type Parsed } from './args.js';
import { EXIT } from './exit.js';

/** Where a command writes: results to `out` (stdout), everything else to `err` (stderr). */
export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Bytes exactly as given (export), no newline added. */
  raw: (data: Uint8Array) => void;
  /** One line of progress, kept up to date in place on a terminal ('' clears it); nothing when stderr is a file or a pipe. */
  progress?: (text: string) => void;
}

/** One JSON document on one line, no control character raw (see jsonText). */
export function printJson(io: Output, doc: unknown): void {
  io.out(jsonText(doc));
}

/** `--by`, else MDCLAIM_BY; `next` and `claim` may make one up, the holder-only commands may not. */
export function claimant(p: Parsed, generate: boolean): string {
  const by = one(p, 'by') ?? process.env['MDCLAIM_BY'];
  if (by !== undefined) return by;
  if (!generate) throw usage(`${p.command} needs --by (or MDCLAIM_BY): only the holder may do this`);
  // -q prints only the id: a claimant made up and never shown could not finish the task.
  if (has(p, 'quiet') && !has(p, 'json')) throw usage(`${p.command} -q needs --by (or MDCLAIM_BY): it prints only the id, and nobody could finish a claim under a name never shown`);
  return randomHex(4);
}

/**
 * Who asks a read-only question about holds (`paths check`, `guard`): `--by`,
 * else MDCLAIM_BY, else a name made up for this call, which holds nothing, so
 * every hold is someone else's.
 */
export function asker(p: Parsed, prefix: string): string {
  return one(p, 'by') ?? process.env['MDCLAIM_BY'] ?? `${prefix}-${randomHex(8)}`;
}

/** The one task argument of a task command (checked by the dispatcher). */
export const taskArg = (p: Parsed): string => p.positionals[0]!;

/** Say what changed: the task as JSON, or one line. */
export function changed(task: Task, p: Parsed, io: Output, line: string): number {
  if (has(p, 'json')) printJson(io, { task });
  else io.out(line);
  return EXIT.OK;
}
