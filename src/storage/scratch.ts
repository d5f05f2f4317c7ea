// Buffers a process reuses for the board's bytes while it holds the lock.

/**
 * Boards up to this size keep their buffers between operations; a larger one gets buffers of its
 * own each time, given back when it is done.
 */
const KEEP = 32 * 1024 * 1024;

/** What each use keeps: the board as read, and its bytes read back for the last check before a write. */
export type ScratchUse = 'board' | 'check';

const kept: Record<ScratchUse, Buffer | null> = { board: null, check: null };

/**
 * A buffer of at least `size` bytes for `use`, its contents undefined. A board's bytes are read into
 * a fresh allocation of their size at every operation otherwise: past a few hundred KiB that is
 * memory the kernel maps anew and faults in page by page (about 150 µs for 300 KiB), more than the
 * read. Only for work done synchronously under the lock: the next operation of this process, on
 * any board, writes over it.
 */
export function scratch(use: ScratchUse, size: number): Buffer {
  const have = kept[use];
  if (have !== null && have.length >= size) return have;
  const made = Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
  if (made.length <= KEEP) kept[use] = made;
  return made;
}
