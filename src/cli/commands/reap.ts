import { named } from '../../format/named.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

export const reap: Command = async (board, p, io) => {
  const dryRun = has(p, 'dry-run');
  const ttl = one(p, 'ttl');
  const reaped = await board.reap({ ...(ttl === undefined ? {} : { ttl }), dryRun, includeUntimed: has(p, 'include-untimed') });
  if (has(p, 'json')) printJson(io, { reaped, ...(dryRun ? { dryRun } : {}) });
  else {
    for (const t of reaped) {
      io.out(`${dryRun ? 'would reopen' : 'reopened'} ${named(t)} (claimed by ${t.by ?? 'someone unnamed'}${t.claimedAt ? ` since ${t.claimedAt}` : ''})`);
    }
  }
  return EXIT.OK;
};
