import { has, one, wholeNumber } from '../args.js';
import { EXIT } from '../exit.js';
import { claimant, printJson } from '../output.js';
import { lease, printClaimed } from './claimed.js';
import type { Command } from './types.js';

export const next: Command = async (board, p, io) => {
  const by = claimant(p, true);
  const leaseValue = lease(p);
  const section = one(p, 'section');
  const tags = p.flags.get('tag');
  const maxAttempts = wholeNumber(p, 'max-attempts');
  const budget = maxAttempts === undefined ? {} : { maxAttempts };
  const picked = await board.next({ by, ...(leaseValue === undefined ? {} : { lease: leaseValue }), ...(tags ? { tags } : {}), ...(section === undefined ? {} : { section }), ...budget });
  if (!picked) {
    if (has(p, 'json')) printJson(io, { task: null });
    else io.err(`nothing to claim in ${board.location}`);
    return EXIT.NO_TASK;
  }
  return printClaimed(picked, p, io);
};
