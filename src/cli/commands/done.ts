import { named } from '../../format/named.js';
import { one } from '../args.js';
import { changed, claimant, taskArg } from '../output.js';
import type { Command } from './types.js';

export const done: Command = async (board, p, io) => {
  const commit = one(p, 'commit');
  const t = await board.done(taskArg(p), { by: claimant(p, false), ...(commit === undefined ? {} : { commit }) });
  return changed(t, p, io, `done ${named(t)} by ${t.by}${t.commit ? ` at ${t.commit}` : ''}`);
};
