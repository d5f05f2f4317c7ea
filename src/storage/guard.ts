import { readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { MdclaimError } from '../errors.js';
import { scratch } from './scratch.js';

/**
 * The last look before a write: is the board still what this operation read?
 * Writers that take the lock cannot change it meanwhile; one that ignores the
 * lock can, and its change must not be silently written over. Caught here:
 * the path now names another file (`sed -i`, an editor's save), or the bytes
 * in [from, to) differ from those read (pass `to` past the end to catch a
 * file that grew). Throws VERIFY; nothing has been written then.
 */
export function assertUnchanged(fd: number, file: string, st: Stats, old: Buffer, from: number, to: number): void {
  let now: Stats | null = null;
  try {
    now = statSync(file);
  } catch {
    // gone from the path: a writer renamed it away
  }
  if (!now || now.ino !== st.ino || now.dev !== st.dev) throw changed(file, 'the path now names another file');
  const want = old.subarray(from, Math.min(to, old.length));
  const got = scratch('check', to - from);
  const n = readSync(fd, got, 0, to - from, from);
  if (n !== want.length || !got.subarray(0, n).equals(want)) throw changed(file, `its bytes from ${from} differ from those read`);
}

function changed(file: string, how: string): MdclaimError {
  return new MdclaimError('VERIFY', `${file}: changed by a writer that ignores the lock while mdclaim worked (${how}); nothing was written, run it again`, { file });
}
