import { named } from '../../format/named.js';
import { attemptsOfTask, parkReason } from '../../board/park.js';
import { has, one, wholeNumber } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

export const reap: Command = async (board, p, io) => {
  const dryRun = has(p, 'dry-run');
  const ttl = one(p, 'ttl');
  const maxAttempts = wholeNumber(p, 'max-attempts');
  const budget = maxAttempts === undefined ? {} : { maxAttempts };
  const reaped = await board.reap({ ...(ttl === undefined ? {} : { ttl }), dryRun, includeUntimed: has(p, 'include-untimed'), ...budget });
  const { parked } = reaped;
  if (has(p, 'json')) printJson(io, { reaped, ...(maxAttempts === undefined ? {} : { parked: parked.map((t) => t.id) }), ...(dryRun ? { dryRun } : {}) });
  else {
    for (const t of reaped) {
      const held = `${t.by ?? 'someone unnamed'}${t.claimedAt ? ` since ${t.claimedAt}` : ''}`;
      if (parked.includes(t)) io.out(`${dryRun ? 'would park' : 'parked'} ${named(t)} (${parkReason(attemptsOfTask(t), t.by)})`);
      else io.out(`${dryRun ? 'would reopen' : 'reopened'} ${named(t)} (claimed by ${held})`);
    }
  }
  return EXIT.OK;
};
