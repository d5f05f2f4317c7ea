import { refuseGoneClaim } from '../../board/claim-gone.js';
import { usage } from '../../errors.js';
import { one } from '../args.js';
import { EXIT } from '../exit.js';
import type { Command } from './types.js';

/** Exit 0 while the claim a runner's command works under is still its own; 4 naming who has the task now. Changes nothing. */
export const fence: Command = async (board, p) => {
  const id = process.env['MDCLAIM_TASK_ID'];
  const by = one(p, 'by') ?? process.env['MDCLAIM_BY'];
  const claimedAt = process.env['MDCLAIM_CLAIMED_AT'];
  if (id === undefined || id === '' || by === undefined || claimedAt === undefined || claimedAt === '') {
    throw usage('fence needs the claim: MDCLAIM_TASK_ID, MDCLAIM_BY and MDCLAIM_CLAIMED_AT, as run gives its command');
  }
  refuseGoneClaim(await board.list(), id, by, claimedAt);
  return EXIT.OK;
};
