import { MdclaimError, usage } from '../errors.js';
import { isValidBy } from '../format/marker.js';

// Argument checks every board makes before it touches anything.

export function checkBy(by: unknown): string {
  if (typeof by !== 'string' || !isValidBy(by)) {
    throw usage(`by must be 1–64 of [A-Za-z0-9._:@-], got ${typeof by === 'string' ? `"${by}"` : typeof by}`);
  }
  return by;
}

export function checkId(id: unknown): string {
  if (typeof id !== 'string' || id === '') throw new MdclaimError('USAGE', `task id must be a non-empty string, got ${typeof id}`);
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

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The claim a fenced holder write names: an RFC 3339 time as next/claim/heartbeat returned it. */
export function checkClaimedAt(at: unknown): string | undefined {
  if (at === undefined) return undefined;
  if (typeof at !== 'string' || !RFC3339.test(at) || Number.isNaN(Date.parse(at))) {
    throw usage(`claimedAt must be an RFC 3339 time such as 2026-11-30T04:06:29Z, got ${typeof at === 'string' ? `"${at}"` : typeof at}`);
  }
  return at;
}
