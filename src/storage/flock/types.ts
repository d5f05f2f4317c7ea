/**
 * flock(2) on a descriptor: `sh`/`ex` block, `shnb`/`exnb` fail at once with
 * EAGAIN or EWOULDBLOCK when the lock is taken, `un` lets go. Errors carry
 * the errno name as `code`, as Node's own do.
 */
export interface FlockFn {
  (fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}

/** Where this process's flock(2) comes from: every provider calls the same system call, so they exclude each other. */
export interface FlockProvider {
  name: 'fs-ext' | 'koffi';
  flock: FlockFn;
}
