import { named } from '../../format/named.js';
import { changed, claimant, taskArg } from '../output.js';
import { lockList, pathFlag } from './path-flags.js';
import type { Command } from './types.js';
import { pathBoard } from './kind.js';

export const pathsLock: Command = async (any, p, io) => {
  const board = pathBoard(any, 'paths lock');
  const writes = pathFlag(p, 'writes');
  const reads = pathFlag(p, 'reads');
  const t = await board.lockPaths(taskArg(p), { by: claimant(p, false), ...(writes ? { writes } : {}), ...(reads ? { reads } : {}) });
  return changed(t, p, io, `${named(t)} by ${t.by} locks ${lockList(t)}`);
};
