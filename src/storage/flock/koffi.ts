import { createRequire } from 'node:module';
import { constants } from 'node:os';
import type { FlockFn } from './types.js';

const require = createRequire(import.meta.url);

interface Koffi {
  load(path: string | null): { func(signature: string): (fd: number, op: number) => number };
  errno(): number;
}

// LOCK_SH, LOCK_EX, LOCK_NB and LOCK_UN: the same values on Linux, macOS and the BSDs.
const OPS = { sh: 1, ex: 2, shnb: 1 | 4, exnb: 2 | 4, un: 8 } as const;

let names: Map<number, string> | undefined;

/** The errno's name (EAGAIN, EBADF, …), as Node's own errors carry it. */
function errnoName(errno: number): string {
  names ??= new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
  // EWOULDBLOCK is EAGAIN's other name: say EAGAIN, as fs-ext does.
  return errno === constants.errno.EAGAIN ? 'EAGAIN' : (names.get(errno) ?? `errno ${errno}`);
}

/**
 * flock(2) from the C library already in this process, called through koffi,
 * an FFI whose npm package ships prebuilt binaries (Linux glibc and musl,
 * macOS, FreeBSD, Windows): no compiler at install time, and the same kernel
 * lock fs-ext takes. Only non-blocking calls are made from JavaScript (see
 * DirLock): a blocking one would hold this thread, and koffi's async calls
 * would pin a libuv pool thread for the whole wait.
 */
export function loadKoffi(): FlockFn {
  const koffi = require('koffi') as Koffi;
  // null: the symbols of this process itself (its C library), whatever the platform calls that library.
  const call = koffi.load(null).func('int flock(int fd, int op)');
  return (fd, flags) => {
    if (call(fd, OPS[flags]) === 0) return;
    const errno = koffi.errno();
    const code = errnoName(errno);
    throw Object.assign(new Error(`flock: ${code}`), { code, errno: -errno, syscall: 'flock' });
  };
}
