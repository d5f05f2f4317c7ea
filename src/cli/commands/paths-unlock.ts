import { changed, claimant, taskArg } from '../output.js';
import { lockList } from './path-flags.js';
import type { Command } from './types.js';
import { pathBoard } from './kind.js';

/** `paths unlock <task> [P…]`: the named locks, or all of them. */
export const pathsUnlock: Command = async (any, p, io) => {
  const board = pathBoard(any, 'paths unlock');
  const named = p.positionals.slice(1);
  const t = await board.unlockPaths(taskArg(p), { by: claimant(p, false), ...(named.length > 0 ? { paths: named } : {}) });
  return changed(t, p, io, `${t.id} by ${t.by} locks ${lockList(t)}`);
};
