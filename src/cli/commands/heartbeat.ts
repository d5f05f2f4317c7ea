import { named } from '../../format/named.js';
import { changed, claimant, taskArg } from '../output.js';
import { expires } from './claimed.js';
import type { Command } from './types.js';

/** Renew the claim time; the claim keeps the lease its line records. */
export const heartbeat: Command = async (board, p, io) => {
  const t = await board.heartbeat(taskArg(p), { by: claimant(p, false) });
  return changed(t, p, io, `renewed ${named(t)} by ${t.by} (lease expires ${expires(t)})`);
};
