import { changed, claimant, taskArg } from '../output.js';
import { expires, lease } from './claimed.js';
import type { Command } from './types.js';

export const heartbeat: Command = async (board, p, io) => {
  const leaseValue = lease(p);
  const t = await board.heartbeat(taskArg(p), { by: claimant(p, false) });
  return changed(t, p, io, `renewed ${t.id} by ${t.by} (lease expires ${expires(t, leaseValue)})`);
};
