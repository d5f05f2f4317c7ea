import { named } from '../../format/named.js';
import { changed, claimant, taskArg } from '../output.js';
import type { Command } from './types.js';

export const release: Command = async (board, p, io) => {
  const by = claimant(p, false);
  const t = await board.release(taskArg(p), { by });
  return changed(t, p, io, `released ${named(t)} by ${by}`);
};
