import { childProcess } from '../builtins.js';
import { readFileSync } from 'node:fs';

/**
 * This process's file size limit (`ulimit -f`) in bytes, Infinity when none
 * or unknown. Linux: /proc/self/limits. Elsewhere (no /proc, and Node has no
 * getrlimit): a /bin/sh that inherits the limit says it, in POSIX's
 * 512-byte blocks (dash, FreeBSD's sh and macOS's bash-as-sh all do).
 */
export function fileSizeLimit(platform: NodeJS.Platform): number {
  try {
    if (platform === 'linux') {
      const m = /^Max file size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
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
