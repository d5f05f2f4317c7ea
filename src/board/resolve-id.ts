import { MdclaimError, usage } from '../errors.js';
import type { ByteString } from '../format/bytes.js';
import { idForm } from '../format/id.js';
import { named } from '../format/named.js';
import { listTasks } from './walk.js';

// Ids are 12-hex hashes: a person types the start of one. The one rule, for
// every board: a string that is no whole id and has at least MIN_PREFIX
// characters names the task whose id starts with it, when exactly one id does.

export const MIN_PREFIX = 4;

/** How many candidates an ambiguous prefix's message lists. */
const LISTED = 8;

/** Is `id` to be read as the start of an id (not a whole tracker key or hash)? */
export function isPrefix(id: string): boolean {
  return idForm(id) === null && id.length >= MIN_PREFIX;
}

/**
 * The whole id `prefix` starts, among `tasks` (any order, duplicates
 * allowed): NOT_FOUND when none, USAGE listing the candidates with their
 * text when several ids start with it.
 */
export function resolvePrefix(prefix: string, tasks: Iterable<{ id: string; text: string }>): string {
  const ids = idsStartingWith(prefix, tasks);
  if (ids.size === 1) return [...ids.keys()][0]!;
  if (ids.size === 0) throw new MdclaimError('NOT_FOUND', `no task with id ${prefix}, nor one whose id starts with it`);
  const shown = [...ids.values()].slice(0, LISTED).map(named);
  const more = ids.size > LISTED ? `, and ${ids.size - LISTED} more` : '';
  throw usage(`${prefix} is the start of ${ids.size} ids: use more of one: ${shown.join(', ')}${more}`);
}

/** The ids `prefix` is the start of, each with its first task: what resolvePrefix decides from, for a caller that reports rather than throws. */
export function idsStartingWith<T extends { id: string }>(prefix: string, tasks: Iterable<T>): Map<string, T> {
  const ids = new Map<string, T>();
  for (const t of tasks) if (t.id.startsWith(prefix) && !ids.has(t.id)) ids.set(t.id, t);
  return ids;
}

/** NOT_FOUND for an id no task answers to; one too short to be the start of an id says how long one must be. */
export function noTask(id: string): MdclaimError {
  const hint = idForm(id) === null && id.length < MIN_PREFIX ? ` (the start of an id must be ${MIN_PREFIX} or more characters)` : '';
  return new MdclaimError('NOT_FOUND', `no task with id ${id}${hint}`);
}

/** The whole id `id` names on a file board's bytes: itself, or the one id it is the start of. */
export function idIn(src: ByteString, id: string): string {
  return isPrefix(id) ? resolvePrefix(id, listTasks(src)) : id;
}
