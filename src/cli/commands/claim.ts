import { claimant, taskArg } from '../output.js';
import { lease, printClaimed } from './claimed.js';
import type { Command } from './types.js';

export const claim: Command = async (board, p, io) => {
  const leaseValue = lease(p);
  return printClaimed(await board.claim(taskArg(p), { by: claimant(p, true), ...(leaseValue === undefined ? {} : { lease: leaseValue }) }), p, io);
};
