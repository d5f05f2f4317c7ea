import { has, one, wholeNumber } from '../args.js';
import { EXIT } from '../exit.js';
import { claimant, printJson } from '../output.js';
import { lease, printClaimed } from './claimed.js';
import type { Command } from './types.js';
import type { PassedOver } from '../../board/types.js';
import { passedOverLine } from '../../board/unclaimable.js';

export const next: Command = async (board, p, io) => {
  const by = claimant(p, true);
  const leaseValue = lease(p);
  const section = one(p, 'section');
  const tags = p.flags.get('tag');
  const maxAttempts = wholeNumber(p, 'max-attempts');
  const budget = maxAttempts === undefined ? {} : { maxAttempts };
  // A task its own line keeps from being claimed stops no one: said once, and the next one taken.
  const onPassOver = (p: PassedOver) => io.err(passedOverLine(p));
  const picked = await board.next({ by, ...(leaseValue === undefined ? {} : { lease: leaseValue }), ...(tags ? { tags } : {}), ...(section === undefined ? {} : { section }), ...budget, onPassOver });
  if (!picked) {
    if (has(p, 'json')) printJson(io, { task: null });
    else io.err(`nothing to claim in ${board.location}`);
    return EXIT.NO_TASK;
  }
  return printClaimed(picked, p, io);
};
