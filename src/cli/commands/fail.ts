import { named } from '../../format/named.js';
import { one } from '../args.js';
import { changed, claimant, taskArg } from '../output.js';
import type { Command } from './types.js';

export const fail: Command = async (board, p, io) => {
  const reason = one(p, 'reason');
  const t = await board.fail(taskArg(p), { by: claimant(p, false), ...(reason === undefined ? {} : { reason }) });
  return changed(t, p, io, `failed ${named(t)} by ${t.by}${t.reason ? `: ${t.reason}` : ''}`);
};
