import type { ByteString } from './bytes.js';

/** Replace bytes [start, end) of the file with `bytes` (a byte string). */
export interface Edit {
  start: number;
  end: number;
  bytes: ByteString;
}

/**
 * The new file's bytes as the pieces it is made of, in order: the untouched ranges of `buf` (views,
 * not copies) and each edit's bytes, for non-overlapping edits in any order.
 */
export function editPieces(buf: Buffer, edits: readonly Edit[]): Buffer[] {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const e of sorted) {
    if (e.start < from || e.end < e.start || e.end > buf.length) throw new RangeError(`overlapping or out-of-range edit at byte ${e.start}`);
    pieces.push(buf.subarray(from, e.start), Buffer.from(e.bytes, 'latin1'));
    from = e.end;
  }
  pieces.push(buf.subarray(from));
  return pieces;
}

/** Apply non-overlapping edits (in any order) to the file's bytes: copies of the untouched ranges, no re-encoding of the whole file. */
export function applyEditsToBuffer(buf: Buffer, edits: readonly Edit[]): Buffer {
  return Buffer.concat(editPieces(buf, edits));
}
