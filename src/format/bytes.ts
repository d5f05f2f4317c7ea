/**
 * The scanner works on a "byte string": the file decoded as latin1, so that
 * every UTF-16 index is a byte offset into the file and every write lands on
 * exact bytes. Only the fields a caller asks for are decoded as UTF-8.
 */
export type ByteString = string;

export function toByteString(input: Uint8Array | string): ByteString {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return buf.toString('latin1');
}

/** Decode bytes [start, end) of a byte string as UTF-8. */
export function utf8(src: ByteString, start = 0, end = src.length): string {
  return Buffer.from(src.slice(start, end), 'latin1').toString('utf8');
}

/** Encode a UTF-8 string as a byte string. */
export function bytes(text: string): ByteString {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Compare bytes [at, at + s.length) of a byte string with `s`, in place: negative, zero or positive. */
export function compareAt(src: ByteString, at: number, s: string): number {
  for (let k = 0; k < s.length; k++) {
    const d = src.charCodeAt(at + k) - s.charCodeAt(k);
    if (d !== 0) return d;
  }
  return 0;
}
