import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { clock, toUs } from './util.js';

// Where a file claimer's claim goes, told apart by the file system calls it makes, in the order
// every claim makes them (lock, open, read, decide, write, check, let go). The calls are wrapped
// in this process only (node:fs's exports, which ES module imports of it see once synced), so the
// library runs unchanged; the wrapping costs a few µs a claim, so the bench takes these figures
// in runs of their own, not in the runs it rates.

/** µs of one claim, phase by phase: they add up to the claim's whole time. */
export interface ClaimSplit {
  /** From the call to the board's open: resolving the path and waiting for and taking the lock. */
  lock: number;
  /** Opening and reading the board. */
  read: number;
  /** From the end of the read to the first write or check: the scan, the decision and the check that the changed line reads as meant (JS). */
  decide: number;
  /** Writing: the temp file (create, mode, owner, bytes, rename) or the one pwrite. */
  write: number;
  /** Reading back: the written bytes, and the board checked still as read (stat and pread) before the write lands. */
  verify: number;
  /** From the last write or check to the return: closing, unlocking, and the task returned built. */
  release: number;
}

export const PHASES = ['lock', 'read', 'decide', 'write', 'verify', 'release'] as const;

type Kind = 'open' | 'read' | 'write' | 'verify' | 'close';

/** Which phase a call belongs to, from where the claim stands (null: none, the time stays where it falls). */
const KIND: Record<string, (stage: Stage, board: string, args: unknown[]) => Kind | null> = {
  // The board's open ends the lock phase; the lock's own directory is opened before it, a temp file after.
  openSync: (s, board, args) => (args[0] === board && s !== 'after' ? 'open' : s === 'lock' ? null : 'write'),
  fstatSync: (s) => (s === 'read' ? 'open' : null),
  readSync: (s) => (s === 'read' ? 'read' : s === 'after' ? 'verify' : null),
  statSync: (s) => (s === 'lock' ? null : 'verify'),
  writeSync: (s) => (s === 'lock' ? null : 'write'),
  writevSync: (s) => (s === 'lock' ? null : 'write'),
  fchmodSync: (s) => (s === 'lock' ? null : 'write'),
  fchownSync: (s) => (s === 'lock' ? null : 'write'),
  renameSync: (s) => (s === 'lock' ? null : 'write'),
  // Closing after the write: the last call under the lock (the floor's close of its directory is its unlock).
  closeSync: (s) => (s === 'after' ? 'close' : null),
};

/** Monotonic ns (the clock every process shares) when a claim first touched its board under the lock, and when its last call under it ended. */
export interface HeldStamps {
  acquired: bigint;
  released: bigint;
}

type Stage = 'lock' | 'read' | 'after';

let current: { stage: Stage; t0: bigint; open: bigint | null; readEnd: bigint | null; first: bigint | null; last: bigint | null; closed: bigint | null; write: number; verify: number } | null = null;

/** Wrap node:fs's calls so that each claim of the board at `board` between begin() and end() is split by phase. */
export function splitClaims(board: string): { begin: () => void; end: () => ClaimSplit & { held: HeldStamps | null } } {
  const target = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of Object.keys(KIND)) {
    const orig = target[name]!;
    target[name] = function (this: unknown, ...args: unknown[]) {
      const c = current;
      const kind = c === null ? null : KIND[name]!(c.stage, board, args);
      if (c === null || kind === null) return orig.apply(this, args);
      const t0 = clock();
      try {
        return orig.apply(this, args);
      } finally {
        const t1 = clock();
        if (kind === 'close') c.closed = t1;
        else if (kind === 'open' || kind === 'read') {
          c.open ??= t0;
          c.stage = 'read';
          c.readEnd = t1;
        } else {
          c.stage = 'after';
          c.first ??= t0;
          c.last = t1;
          if (kind === 'write') c.write += toUs(t1 - t0);
          else c.verify += toUs(t1 - t0);
        }
      }
    };
  }
  syncBuiltinESMExports();
  return {
    begin: () => {
      current = { stage: 'lock', t0: clock(), open: null, readEnd: null, first: null, last: null, closed: null, write: 0, verify: 0 };
    },
    end: () => {
      const c = current!;
      current = null;
      const t1 = clock();
      const open = c.open ?? t1;
      const readEnd = c.readEnd ?? open;
      const first = c.first ?? t1;
      const last = c.last ?? first;
      // Between the first and last write or check, the time not in a call is JS of the write path: counted as writing.
      const writing = toUs(last - first);
      return {
        lock: toUs(open - c.t0),
        read: toUs(readEnd - open),
        decide: toUs(first - readEnd),
        write: writing - c.verify,
        verify: c.verify,
        release: toUs(t1 - last),
        held: c.open === null ? null : { acquired: c.open, released: c.closed !== null && c.closed > last ? c.closed : last },
      };
    },
  };
}
