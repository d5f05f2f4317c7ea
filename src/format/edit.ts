import type { ByteString } from './bytes.js';

/** Replace bytes [start, end) of the file with `bytes` (a byte string). */
export interface Edit {
  start: number;
  end: number;
  bytes: ByteString;
}

/** Apply non-overlapping edits (in any order) to a byte string. Pure. */
export function applyEdits(src: ByteString, edits: readonly Edit[]): ByteString {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at || e.end < e.start || e.end > src.length) throw new RangeError(`overlapping or out-of-range edit at byte ${e.start}`);
    out += src.slice(at, e.start) + e.bytes;
    at = e.end;
  }
  return out + src.slice(at);
}
