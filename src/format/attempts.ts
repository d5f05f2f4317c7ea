import type { ByteString } from './bytes.js';
import { claimInstant } from './claim-time.js';
import { formatClaimedAt } from './marker.js';
import type { Status } from './marker.js';

// How often a task was claimed, and when it may be claimed again, written after its text
// (before a failure's ` // Failed: reason`) in the spirit of that reason: ` // Attempts: 2`,
// ` // Attempts: 1, not before 2026-12-02T07:30:00Z`. Never part of the text, so never of the id.

export const ATTEMPTS_SEP = ' // Attempts: ';
/** The most a line records (six digits): a count saturates there, so no claim is ever refused for its count. */
export const MAX_ATTEMPTS = 999999;
const NOT_BEFORE = ', not before ';
// The longest field: the separator, six digits, `, not before ` and a claim time.
const LONGEST = ATTEMPTS_SEP.length + 6 + NOT_BEFORE.length + 20;
const FIELD = /\/\/ Attempts: ([1-9]\d{0,5})(?:, not before (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ))?$/;

/** The attempts field of a line, and where it starts. */
export interface Tries {
  /** The count the line records. */
  attempts: number;
  /** The first instant a claim may take the task, RFC 3339 UTC to the second. */
  notBefore?: string;
  /** Byte offset of the field's leading space. */
  start: number;
}

/**
 * The attempts field that ends a task's text range [start, end) (blanks
 * already trimmed), or null. Only its last bytes are read: a text that ends
 * in neither a digit nor a `Z` carries none, so most lines cost one compare.
 */
export function triesAt(src: ByteString, start: number, end: number): Tries | null {
  const last = src.charCodeAt(end - 1);
  if (!((last >= 0x30 && last <= 0x39) || last === 0x5a)) return null;
  // A window of the field's length, so a line without one never has the file searched.
  const from = Math.max(start, end - LONGEST);
  const window = src.slice(from, end);
  const k = window.lastIndexOf(ATTEMPTS_SEP);
  if (k < 0) return null;
  const at = from + k;
  const m = FIELD.exec(window.slice(k + 1));
  if (m === null) return null;
  const tries: Tries = { attempts: Number(m[1]), start: at };
  if (m[2] !== undefined) {
    // Read as claim times are (claimInstant), on every board: a time naming no instant (hour 24, February 30,
    // year 0000) holds nothing back, so the line has none; a leap second is the instant after, written plainly.
    const at = claimInstant(m[2]);
    if (at !== null) tries.notBefore = Date.parse(m[2]) === at ? m[2] : formatClaimedAt(at);
  }
  return tries;
}

/** The attempts a status implies when its line records none: a claim (and what a claim ended as) is one. */
export function impliedAttempts(status: Status): number {
  return status === 'open' || status === 'blocked' ? 0 : 1;
}

/**
 * The field to write after the text of a line of `status` that has had
 * `attempts` claims: nothing when the marker says as much (no claim yet on
 * an open line, the one claim on a claimed, done or failed line), so boards
 * whose tasks are claimed once read as they always have.
 */
export function renderTries(status: Status, attempts: number, notBefore?: string): string {
  if (notBefore === undefined && attempts <= impliedAttempts(status)) return '';
  return `${ATTEMPTS_SEP}${Math.max(attempts, 1)}${notBefore === undefined ? '' : `${NOT_BEFORE}${notBefore}`}`;
}

/** The fields a line of `status` reads back with after renderTries wrote `attempts` and `notBefore` on it. */
export function recordedTries(status: Status, attempts: number, notBefore?: string): { attempts?: number; notBefore?: string } {
  if (renderTries(status, attempts, notBefore) === '') return {};
  return notBefore === undefined ? { attempts: Math.max(attempts, 1) } : { attempts: Math.max(attempts, 1), notBefore };
}

/** How many claims a line's task has had: what it records, else what its status implies. */
export function attemptsOf(status: Status, tries: Pick<Tries, 'attempts'> | { attempts?: number } | null): number {
  return tries?.attempts ?? impliedAttempts(status);
}
