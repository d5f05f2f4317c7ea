import { MdclaimError } from '../errors.js';

// What each errno means for a board, in words a user can act on.
const WHY: Record<string, string> = {
  ENOENT: 'no such file (mdclaim init creates one; or pass --file)',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'not a regular file',
  EFBIG: "the file would pass this process's file size limit (ulimit -f)",
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
};

/** A file-system failure as MdclaimError IO; `unchanged` says the board was left as it was. */
export function ioError(file: string, err: unknown, unchanged = false): MdclaimError {
  if (err instanceof MdclaimError) return err;
  const e = err as NodeJS.ErrnoException;
  const why = (e.code && WHY[e.code]) ?? e.message;
  return new MdclaimError('IO', `${file}: ${why}${unchanged ? '; the board is unchanged' : ''}`, { file, cause: err });
}
