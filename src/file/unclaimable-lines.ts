import { MdclaimError } from '../errors.js';
import { utf8, type ByteString } from '../format/bytes.js';
import { DEFAULT_LEASE_MS } from '../format/duration.js';
import { claimChange } from './claim.js';
import { checkReading } from '../board/check-reading.js';
import { refuseLine } from '../board/unclaimable.js';
import { walk } from '../board/walk.js';

/** A task line a claim would be refused for, whoever claims it and whenever: the refusal's own message. */
export interface Unclaimable {
  line: number;
  message: string;
}

/**
 * The open and waiting tasks whose claim is refused by the board itself, not
 * by a holder or the time: a declaration that does not normalise, or a new
 * marker that would change how the board reads (see checkReading). Each
 * claim is planned as `next` or `claim` would make it and checked by the same
 * rules, and nothing is written. `next` passes over such a task, so it is
 * never run until its line is fixed.
 */
export function unclaimable(src: ByteString, now: number): Unclaimable[] {
  const found: Unclaimable[] = [];
  walk(src, (s) => {
    const status = s.t.marker.status;
    if (status !== 'open' && status !== 'blocked') return false;
    try {
      refuseLine(utf8(src, s.text[0], s.text[1]), s.t.line);
      checkReading(src, claimChange(src, s, { by: 'mdclaim-doctor', leaseMs: DEFAULT_LEASE_MS, now }));
    } catch (err) {
      if (!(err instanceof MdclaimError)) throw err;
      found.push({ line: s.t.line, message: err.message });
    }
    return false;
  });
  return found;
}
