import { childProcess } from '../builtins.js';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * This process's file size limit (`ulimit -f`) in bytes, Infinity when none
 * or unknown. Linux: /proc/self/limits. Elsewhere (no /proc, and Node has no
 * getrlimit): a /bin/sh that inherits the limit says it, in POSIX's
 * 512-byte blocks (dash, FreeBSD's sh and macOS's bash-as-sh all do).
 */
export function fileSizeLimit(platform: NodeJS.Platform): number {
  try {
    if (platform === 'linux') {
      const m = /^Max file size\s+(\S+)/m.exec(readProc('/proc/self/limits'));
      return m && m[1] !== 'unlimited' ? Number(m[1]) : Infinity;
    }
    return parseUlimit(childProcess().execFileSync('/bin/sh', ['-c', 'ulimit -f'], { encoding: 'latin1', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return Infinity;
  }
}

/** `ulimit -f`'s answer (512-byte blocks, or `unlimited`) in bytes. */
export function parseUlimit(out: string): number {
  const s = out.trim();
  return /^\d+$/.test(s) ? Number(s) * 512 : Infinity;
}

/**
 * A small /proc file's text, read to its end (/proc says a size of 0) with
 * the calls a claim makes anyway: readFileSync would compile its own helpers
 * in a fresh process and fill a 64 KiB buffer, millions of instructions more
 * than this.
 */
function readProc(path: string): string {
  const fd = openSync(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(4096);
    let n = 0;
    for (;;) {
      if (n === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) return buf.toString('latin1', 0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}
