import { named } from '../../format/named.js';
import { changed, claimant, taskArg } from '../output.js';
import { lockList, pathFlag } from './path-flags.js';
import type { Command } from './types.js';

export const pathsLock: Command = async (board, p, io) => {
  const writes = pathFlag(p, 'writes');
  const reads = pathFlag(p, 'reads');
  const t = await board.lockPaths(taskArg(p), { by: claimant(p, false), ...(writes ? { writes } : {}), ...(reads ? { reads } : {}) });
  return changed(t, p, io, `${named(t)} by ${t.by} locks ${lockList(t)}`);
};
