// fs-ext ships no types; the bench needs only flock.
declare module 'fs-ext' {
  export function flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}
