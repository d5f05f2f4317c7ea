import { named } from '../../format/named.js';
import { one } from '../args.js';
import { changed, taskArg } from '../output.js';
import type { Command } from './types.js';

/** A done or failed task back to open; --by (or MDCLAIM_BY) only says who, for a PostgreSQL board's history. */
export const reopen: Command = async (board, p, io) => {
  const by = one(p, 'by') ?? process.env['MDCLAIM_BY'];
  const t = await board.reopen(taskArg(p), by === undefined ? {} : { by });
  return changed(t, p, io, `reopened ${named(t)}: open again`);
};
