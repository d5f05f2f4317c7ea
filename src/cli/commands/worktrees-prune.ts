import { findTrees } from '../../runner/worktree.js';
import { pruneTrees } from '../../runner/worktree-prune.js';
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
    for (const r of removed) io.out(`${dryRun ? 'would remove' : 'removed'} ${r.name} (${r.path}${r.branch === undefined ? '' : `, branch ${r.branch}`})`);
    for (const k of kept) io.out(`kept ${k.name}: ${k.reason}`);
  }
  return EXIT.OK;
};
