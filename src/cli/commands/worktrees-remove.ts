import { findTrees } from '../../runner/worktree/trees.js';
import { removeOne } from '../../runner/worktree/remove.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';
import { removedLine } from './worktrees-prune.js';

/** Remove one worktree on purpose: refused while a claim holds it or it has uncommitted work; unmerged commits need --force. */
export const worktreesRemove: Command = async (board, p, io) => {
  const trees = await findTrees(process.cwd(), one(p, 'trees'), undefined, board.handOff);
  const removed = await removeOne(board, trees, p.positionals[0]!, has(p, 'force'));
  if (has(p, 'json')) printJson(io, { removed });
  else io.out(removedLine(removed, false));
  return EXIT.OK;
};
