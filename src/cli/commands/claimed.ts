import { named } from '../../format/named.js';
import { parseLease } from '../../board/duration.js';
import type { Task } from '../../format/task.js';
import { has, one, type Parsed } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson, type Output } from '../output.js';

/** The `--lease` value for the new claim, checked before anything is written; none means the default. */
export function lease(p: Parsed): string | undefined {
  const value = one(p, 'lease');
  if (value !== undefined) parseLease(value, '--lease');
  return value;
}

/** When the claim lapses, by its own lease as its line records it. */
export function expires(task: Task): string {
  return task.expiresAt ?? 'never: its claim time names no instant';
}

/** Print a claimed task the way next/claim do. */
export function printClaimed(task: Task, p: Parsed, io: Output): number {
  if (has(p, 'json')) printJson(io, { task });
  else if (has(p, 'quiet')) io.out(task.id);
  else {
    io.out(`claimed ${named(task)} by ${task.by} (lease expires ${expires(task)})`);
    // A holder made up for this call is the one name that can finish the claim: say how.
    if (one(p, 'by') === undefined && process.env['MDCLAIM_BY'] === undefined) {
      io.err(`mdclaim: you hold it as ${task.by}: finish with npx mdclaim done ${task.id} --by ${task.by} (or fail, release); give --by NAME or MDCLAIM_BY to choose the name`);
    }
  }
  return EXIT.OK;
}
