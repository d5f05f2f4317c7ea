import { findTrees } from '../../runner/worktree/trees.js';
import { pruneTrees, type Removed } from '../../runner/worktree/prune.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** Remove the worktrees whose work is settled and merged; say what was removed and why each other one stays. */
export const worktreesPrune: Command = async (board, p, io) => {
  const dryRun = has(p, 'dry-run');
  const trees = await findTrees(process.cwd(), one(p, 'trees'), undefined, board.handOff);
  const { removed, kept } = await pruneTrees(board, trees, { dryRun });
  if (has(p, 'json')) printJson(io, { dryRun, removed, kept });
  else {
    for (const r of removed) io.out(removedLine(r, dryRun));
    for (const k of kept) io.out(`kept ${k.name}: ${k.reason}`);
  }
  return EXIT.OK;
};

/** `removed api (/repo/trees/api, branch api)`; a branch left: `…; branch release kept: mdclaim did not make it)`. */
export function removedLine(r: Removed, dryRun: boolean): string {
  const branch = r.branch !== undefined ? `, branch ${r.branch}${r.at === undefined ? '' : ` at ${r.at.slice(0, 12)}`}` : r.branchKept !== undefined ? `; branch ${r.branchKept.branch} kept: ${r.branchKept.reason}` : '';
  return `${dryRun ? 'would remove' : 'removed'} ${r.name} (${r.path}${branch})`;
}
