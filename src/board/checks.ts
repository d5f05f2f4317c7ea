import { claimInstant } from '../format/claim-time.js';
import { usage } from '../errors.js';
import { isValidBy } from '../format/marker.js';
import { sectionName } from '../format/section.js';

// Argument checks every board makes before it touches anything.

export function checkBy(by: unknown): string {
  if (typeof by !== 'string' || !isValidBy(by)) {
    throw usage(`by must be 1–64 of [A-Za-z0-9._:@-], got ${typeof by === 'string' ? `"${by}"` : typeof by}`);
  }
  return by;
}

export function checkId(id: unknown): string {
  if (typeof id !== 'string') throw usage(`a task id must be a string, got ${id === null ? 'null' : typeof id}`);
  if (id === '') throw usage('the task id is empty: name a task by its id, its tracker key or the start of its id (list shows them)');
  return id;
}

export function checkTags(tags: readonly string[]): string[] {
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || t === '')) throw usage('tags must be an array of non-empty strings');
  return [...tags];
}

const COMMIT = /^[A-Za-z0-9._/-]{1,64}$/;

export function checkCommit(commit: string | undefined): void {
  if (commit !== undefined && (typeof commit !== 'string' || !COMMIT.test(commit))) throw usage(`commit "${String(commit)}" must be 1–64 of [A-Za-z0-9._/-]`);
}

/** Who makes a holder write: the claimant, and the claim time that fences it to one claim. */
export function checkHolder(options: { by: string; claimedAt?: string }): { by: string; claimedAt?: string } {
  const by = checkBy(options?.by);
  const at = options.claimedAt;
  if (at === undefined) return { by };
  if (typeof at !== 'string' || claimInstant(at) === null) {
    throw usage(`claimedAt must be an RFC 3339 time as a claim carries it, got ${typeof at === 'string' ? `"${at}"` : typeof at}`);
  }
  return { by, claimedAt: at };
}

export function checkSection(section: unknown): string {
  if (typeof section !== 'string') throw usage(`section must be a string, got ${typeof section}`);
  return sectionName(section);
}

/** An attempts budget: a whole number from 1 (a claim is an attempt, so a budget of none parks every task). */
export function checkMaxAttempts(n: unknown, name = 'maxAttempts'): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 999_999) throw usage(`${name} must be a whole number from 1 to 999999, got ${typeof n === 'number' ? n : typeof n}`);
  return n;
}

/** The budget a claimer passes, checked. */
export function budget(options: { maxAttempts?: number }): { maxAttempts?: number } {
  return options.maxAttempts === undefined ? {} : { maxAttempts: checkMaxAttempts(options.maxAttempts) };
}
