import { named } from '../../format/named.js';
import { changed, claimant, taskArg } from '../output.js';
import { lockList } from './path-flags.js';
import type { Command } from './types.js';

/** `paths unlock <task> [P…]`: the named locks, or all of them. */
export const pathsUnlock: Command = async (board, p, io) => {
  const listed = p.positionals.slice(1);
  const t = await board.unlockPaths(taskArg(p), { by: claimant(p, false), ...(listed.length > 0 ? { paths: listed } : {}) });
  return changed(t, p, io, `${named(t)} by ${t.by} locks ${lockList(t)}`);
};
