import type { Task } from '../../format/task.js';
import { passesFilter, worktreeOf } from '../../format/worktree-section.js';
import type { NextOptions } from '../../board/types.js';
import type { RunnerBoard } from '../types.js';
import { placeOf, placeProblem, type Trees } from './trees.js';

/**
 * The next task whose worktree no other claim holds, claimed and holding it.
 * A worktree is a path the claim locks (see placeOf), so one task at a time
 * runs in it, across runners and hosts, by the board's own path rule. A
 * section whose worktree is held is passed over for the next section, each
 * asked for by name in board order; a task claimed while another claim took
 * its worktree first is given back untouched (a release counts no attempt).
 * A task whose section names no worktree git can make is passed over, never
 * claimed: one bad heading stops no run.
 */
export async function nextInWorktree(board: RunnerBoard, options: NextOptions, trees: Trees): Promise<Task | null> {
  const held = new Set((await board.paths()).map((h) => h.path));
  const tasks = await board.list();
  for (const section of candidates(tasks, options, trees, held)) {
    const task = await board.next(section === undefined ? options : { ...options, section });
    if (task === null) continue;
    const fence = { by: options.by, claimedAt: task.claimedAt! };
    const problem = placeProblem(task);
    if (problem !== undefined) {
      // Asked for without a section, next took one from a section that names no worktree: give it back untouched.
      await board.release(task.id, fence);
      options.onPassOver?.({ task, reason: `${problem}: no worktree for it` });
      continue;
    }
    const lock = placeOf(task, trees).lock;
    try {
      return await board.lockPaths(task.id, { ...fence, writes: [lock] });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'CONFLICT') throw err;
      // Another claim holds this worktree (or a path over it): this one is not ours to work in now.
      await board.release(task.id, fence).catch(() => {});
      held.add(lock);
    }
  }
  return null;
}

/**
 * The sections to ask in, in board order, each once: those with a task that
 * may be claimable and matches the filters, less those whose worktree a claim
 * holds. Tasks above every heading (no section) are asked for without one,
 * and come first on a board, as `next` takes them.
 */
function candidates(tasks: readonly Task[], options: NextOptions, trees: Trees, held: ReadonlySet<string>): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  const seen = new Set<string>();
  for (const t of tasks) {
    if (t.status !== 'open' && t.status !== 'blocked' && t.status !== 'claimed') continue;
    if (!passesFilter(t.section, t.tags, options)) continue;
    const key = t.section ?? '';
    if (seen.has(key)) continue;
    const problem = placeProblem(t);
    if (problem !== undefined) {
      seen.add(key);
      // No worktree can be made for it (nor for the rest of its section): passed over, as next passes over a line it cannot claim.
      options.onPassOver?.({ task: t, reason: `${problem}: no worktree for it` });
      continue;
    }
    const lock = placeOf(t, trees).lock;
    // A worktree section's tasks share one worktree; any other task has its own.
    if (held.has(lock) && t.section !== undefined && worktreeOf(t.section) !== undefined) continue;
    seen.add(key);
    out.push(t.section);
  }
  return out;
}
