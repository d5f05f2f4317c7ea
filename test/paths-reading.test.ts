import { describe, expect, it } from 'vitest';
import { applyEdits, checkReading } from '../src/board/check-reading.js';
import { lockPaths } from '../src/file/path-locks.js';
import { dropLocks, markerPlan, type Plan } from '../src/board/plan.js';
import { listTasks, walk, type Seen } from '../src/board/walk.js';
import { bytes, toByteString } from '../src/format/bytes.js';
import type { Task } from '../src/format/task.js';

// The reading check accepts exactly the lock lines a plan says it writes, under the task it names.
const NOW = Date.parse('2026-11-30T04:10:00Z');
const BOARD = toByteString('- [🟡, dana, 2026-11-30T04:06:29Z] A\n- [ ] B\n- [ ] C\n');
const seenAt = (src: string, line: number): Seen => walk(src, (s) => s.t.line === line)!;
const refused = (src: string, plan: Plan<unknown>) => expect(() => checkReading(src, plan)).toThrow(expect.objectContaining({ code: 'USAGE' }));
const idA = listTasks(BOARD)[0]!.id;

function lockPlan(src = BOARD): Plan<Task> {
  return lockPaths(src, idA, { by: 'dana' }, { writes: ['a.ts'], reads: [] }, NOW);
}

describe('the reading check and lock lines', () => {
  it('accepts a lock plan as made: one lock line under its task, every task as it was', () => {
    const plan = lockPlan();
    expect(() => checkReading(BOARD, plan)).not.toThrow();
    const after = listTasks(applyEdits(BOARD, plan.edits));
    expect(after.map((t) => [t.text, t.line, t.locks?.length ?? 0])).toEqual([
      ['A', 1, 1],
      ['B', 3, 0],
      ['C', 4, 0],
    ]);
  });

  it('refuses lock lines the plan does not state, or states for the wrong task', () => {
    const plan = lockPlan();
    // The same bytes, but the plan says the task keeps no locks.
    refused(BOARD, { ...plan, changes: [{ ...plan.changes[0]!, want: { ...plan.changes[0]!.want, locks: [] } }] });
    // The lock line put under B, while the plan speaks of A.
    const underB = seenAt(BOARD, 2).t.end;
    refused(BOARD, { ...plan, edits: [{ ...plan.edits[0]!, start: underB, end: underB }] });
  });

  it('refuses an inserted line that would read as a task, and one that joins another task’s lock lines', () => {
    const plan = lockPlan();
    const end = seenAt(BOARD, 1).t.end;
    refused(BOARD, { ...plan, edits: [{ start: end, end, bytes: '\n  - [ ] sneaky' }] });
    // Removing A's lock lines while planning only a marker change for B.
    const locked = applyEdits(BOARD, plan.edits);
    const b = seenAt(locked, 3);
    const swap = markerPlan(b, bytes('[x]'), { ...listTasks(locked)[1]!, status: 'done' });
    refused(locked, { ...swap, edits: [...swap.edits, ...dropLocks(locked, seenAt(locked, 1))] });
  });

  it('refuses a swap on the line-only path when the plan says the locks under it change', () => {
    const locked = applyEdits(BOARD, lockPlan().edits);
    const a = seenAt(locked, 1);
    const beat = markerPlan(a, bytes('[🟡, dana, 2026-11-30T04:09:00Z]'), { ...listTasks(locked)[0]!, claimedAt: '2026-11-30T04:09:00Z', lease: '30m' });
    expect(() => checkReading(locked, beat)).not.toThrow();
    // A heartbeat that claims to drop the locks without the edit that would.
    refused(locked, { ...beat, changes: [{ ...beat.changes[0]!, want: { ...beat.changes[0]!.want, locks: [] } }] });
  });
});
