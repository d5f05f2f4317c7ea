import { MdclaimError } from '../../errors.js';
import { listTrees, type WorktreeInfo } from './list.js';
import { heldBack, plural, removeTree, type PruneBoard, type Removed } from './prune.js';
import { lockOf, type Trees } from './trees.js';

/**
 * Remove one worktree on purpose (`mdclaim worktrees remove NAME`), whatever
 * prune would say of its tasks and its merge. Refused, as prune keeps it, when
 * mdclaim did not make it for this board, a claim holds it, or it holds
 * uncommitted work (skip-worktree edits too): those are a person's to settle
 * first, and --force does not pass them. Commits of its branch that no other
 * ref has are named and refused unless `force`; the branch goes only when
 * mdclaim made it.
 */
export async function removeOne(board: PruneBoard, trees: Trees, name: string, force: boolean): Promise<Removed> {
  const info = (await listTrees(trees, await board.list())).find((w) => w.name === name);
  if (info === undefined) throw new MdclaimError('NOT_FOUND', `no worktree ${name} in ${trees.dir}`);
  const check = (w: WorktreeInfo, held: boolean): string | undefined => refusal(w, held, force)?.message;
  const first = refusal(info, (await board.paths()).some((p) => p.path === lockOf(name, trees)), force);
  if (first !== undefined) throw first;
  const outcome = await removeTree(board, trees, info, check, force);
  if ('kept' in outcome) throw new MdclaimError('CONFLICT', `${name} was not removed: ${outcome.kept}`);
  return outcome.removed;
}

function refusal(w: WorktreeInfo, held: boolean, force: boolean): MdclaimError | undefined {
  const back = heldBack(w, held);
  if (back !== undefined) return new MdclaimError(back.code, `${w.name} was not removed: ${back.reason}${w.ours && w.changes > 0 && back.code === 'WORKTREE' ? ': commit or discard them first' : ''}`);
  const losing = w.madeBranch === true && w.branch === w.madeOn ? w.deletable ? [] : w.onlyHere : w.branch === undefined ? w.onlyHere : [];
  if (losing.length > 0 && !force) {
    const named = losing.slice(0, 5).join(', ') + (losing.length > 5 ? `, and ${losing.length - 5} more` : '');
    const where = w.baseBranch === undefined ? '' : ` nor in ${w.baseBranch}`;
    return new MdclaimError('WORKTREE', `${w.name} was not removed: ${plural(losing.length, 'commit')} on no other ref${where} would go with it (${named}); --force removes them`);
  }
  return undefined;
}
