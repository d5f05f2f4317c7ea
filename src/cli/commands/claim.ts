import { wholeNumber } from '../args.js';
import { claimant, taskArg } from '../output.js';
import { lease, printClaimed } from './claimed.js';
import type { Command } from './types.js';

export const claim: Command = async (board, p, io) => {
  const leaseValue = lease(p);
  const maxAttempts = wholeNumber(p, 'max-attempts');
  const budget = maxAttempts === undefined ? {} : { maxAttempts };
  return printClaimed(await board.claim(taskArg(p), { by: claimant(p, true), ...(leaseValue === undefined ? {} : { lease: leaseValue }), ...budget }), p, io);
};
