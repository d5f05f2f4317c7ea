import { MdclaimError } from '../errors.js';

/**
 * A file board needs flock(2), process groups and /bin/sh, none of which
 * Windows has (fs-ext's LockFileEx emulation is untested on a directory, and
 * koffi finds no flock there): refused at open, with what works instead.
 */
export function refuseFileBoardOn(platform: NodeJS.Platform, path: string): void {
  if (platform !== 'win32') return;
  throw new MdclaimError(
    'UNSUPPORTED_PLATFORM',
    `${path}: a markdown board is not supported on Windows (no flock(2)); use a PostgreSQL board (a postgres:// URL) or run mdclaim in WSL`,
    { file: path },
  );
}

/** `run` (process groups, a /bin/sh gate, a watchdog) and `lock` (the file board's lock) do not exist on Windows. */
export function refuseCommandOn(platform: NodeJS.Platform, command: 'run' | 'lock'): void {
  if (platform !== 'win32') return;
  throw new MdclaimError('UNSUPPORTED_PLATFORM', `mdclaim ${command} is not supported on Windows; run it in WSL`);
}
