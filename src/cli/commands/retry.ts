import { usage } from '../../errors.js';
import { named } from '../../format/named.js';
import { one } from '../args.js';
import { changed, claimant, taskArg } from '../output.js';
import type { Command } from './types.js';

export const retry: Command = async (board, p, io) => {
  const by = claimant(p, false);
  const delay = one(p, 'delay');
  if (delay === undefined) throw usage('retry needs --delay D: how long the task waits before anyone may claim it again');
  const t = await board.retry(taskArg(p), { by, delay });
  const attempts = t.attempts ?? 1;
  return changed(t, p, io, `gave back ${named(t)} by ${by} for a retry after ${attempts} attempt${attempts === 1 ? '' : 's'}: not before ${t.notBefore}`);
};
