import type { ByteString } from './bytes.js';

/** Replace bytes [start, end) of the file with `bytes` (a byte string). */
export interface Edit {
  start: number;
  end: number;
  bytes: ByteString;
}

/** Apply non-overlapping edits (in any order) to the file's bytes: copies of the untouched ranges, no re-encoding of the whole file. */
export function applyEditsToBuffer(buf: Buffer, edits: readonly Edit[]): Buffer {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const size = sorted.reduce((n, e) => n + e.bytes.length - (e.end - e.start), buf.length);
  const out = Buffer.allocUnsafe(size);
  let from = 0;
  let to = 0;
  for (const e of sorted) {
    if (e.start < from || e.end < e.start || e.end > buf.length) throw new RangeError(`overlapping or out-of-range edit at byte ${e.start}`);
    to += buf.copy(out, to, from, e.start);
    to += out.write(e.bytes, to, 'latin1');
    from = e.end;
  }
  buf.copy(out, to, from);
  return out;
}
