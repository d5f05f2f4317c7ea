import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { MdclaimError } from '../errors.js';
import { ioError } from './io-error.js';

/**
 * Create `file` holding `bytes`, never over anything at that path: O_EXCL
 * makes "none exists" and "it is mine" one step, so a file created
 * meanwhile by someone else is left byte for byte as it is.
 */
export function createExclusive(file: string, bytes: Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new MdclaimError('USAGE', `${file} already exists; init never writes over it (remove it first, or give another --file)`, { file });
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new MdclaimError('IO', `${file}: no such directory`, { file, cause: err });
    throw ioError(file, err);
  }
  try {
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (err) {
    // Ours alone since the open: a half-written board is removed, not left behind.
    closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      // gone already: nothing of ours is left
    }
    throw ioError(file, err);
  }
  closeSync(fd);
}
