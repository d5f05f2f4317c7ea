import { relative } from 'node:path';
import { findTrees } from '../../runner/worktree/trees.js';
import { listTrees, worktreeNameOf, type WorktreeInfo } from '../../runner/worktree/list.js';
import { afterEntries } from '../../board/standing.js';
import { worktreeOf } from '../../format/worktree-section.js';
import type { Task } from '../../format/task.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** The worktrees under the trees directory, those `run --worktree` made for this board told apart: one line each, or `{"worktrees": [...]}`. */
export const worktrees: Command = async (board, p, io) => {
  const trees = await findTrees(process.cwd(), one(p, 'trees'), undefined, board.handOff);
  const tasks = await board.list();
  const all = withWaits(await listTrees(trees, tasks), tasks);
  if (has(p, 'json')) printJson(io, { worktrees: all });
  else if (all.length === 0) io.err(`mdclaim: no worktree in ${trees.dir}`);
  else for (const w of all) io.out(describeTree(w, trees.top));
  return EXIT.OK;
};

/** `api  trees/api  branch api  2 ahead of 1a2b3c4  clean  not in main  running: 9f2c (r1); 1 waiting; 1 done` */
export function describeTree(w: WorktreeInfo & { waitsFor?: WaitedFor[] }, top: string): string {
  const t = w.tasks;
  const tasks = [
    ...(t.running.length > 0 ? [`running: ${t.running.map((r) => `${r.id} (${r.by ?? 'unnamed'})`).join(', ')}`] : []),
    ...(t.open.length > 0 ? [`${t.open.length} open`] : []),
    ...(t.waiting.length > 0 ? [`${t.waiting.length} waiting`] : []),
    ...(t.done.length > 0 ? [`${t.done.length} done`] : []),
    ...(t.failed.length > 0 ? [`${t.failed.length} failed`] : []),
  ];
  const where = [w.name, relative(top, w.path) || w.path, w.branch === undefined ? 'detached HEAD' : `branch ${w.branch}`];
  if (!w.ours) return [...where, `not made by mdclaim for this board${w.board === undefined ? '' : ` (made for ${w.board})`}`].join('  ');
  return [
    ...where,
    w.base === undefined ? 'base unknown' : `${w.ahead} ahead of ${w.base.slice(0, 7)}`,
    w.changes === 0 ? 'clean' : w.changes < 0 ? 'changes unknown' : `${w.changes} uncommitted`,
    w.baseBranch === undefined ? 'no base branch' : `${w.merged ? 'in' : w.cancelsOut ? 'commits cancel out, not in' : 'not in'} ${w.baseBranch}`,
    tasks.length === 0 ? 'no tasks' : tasks.join('; '),
    ...(w.locked === undefined ? [] : [`locked${w.locked === '' ? '' : `: ${w.locked}`}`]),
    ...(w.waitsFor === undefined ? [] : [`waits for ${w.waitsFor.map((d) => `${d.id} (${d.status}${d.worktree === undefined ? '' : `, in ${d.worktree}`})`).join(', ')}`]),
  ].join('  ');
}

/** A task of another worktree (or of none) that a task of this one waits for (`{after: …}`), not done yet. */
export interface WaitedFor {
  id: string;
  status: Task['status'];
  /** The worktree it runs in, when it runs in one of its section's. */
  worktree?: string;
}

/**
 * Each worktree with what its tasks wait for elsewhere (`waitsFor`, only
 * where there is something): what must be done, and merged in or taken as
 * the base, before they can run (see docs/worktrees.md).
 */
function withWaits(all: WorktreeInfo[], tasks: readonly Task[]): (WorktreeInfo & { waitsFor?: WaitedFor[] })[] {
  const after = afterEntries(tasks);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return all.map((w) => {
    const waits = new Map<string, WaitedFor>();
    tasks.forEach((t, i) => {
      if (worktreeNameOf(t) !== w.name || t.status === 'done' || t.status === 'failed') return;
      for (const e of after[i] ?? []) {
        const d = 'status' in e ? byId.get(e.id) : undefined;
        if (d === undefined || d.status === 'done' || worktreeNameOf(d) === w.name) continue;
        const tree = d.section === undefined ? undefined : worktreeOf(d.section);
        waits.set(d.id, { id: d.id, status: d.status, ...(tree === undefined ? {} : { worktree: tree }) });
      }
    });
    return waits.size === 0 ? w : { ...w, waitsFor: [...waits.values()] };
  });
}
