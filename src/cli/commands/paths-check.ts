import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { claimant, printJson } from '../output.js';
import { pathFlag } from './path-flags.js';
import type { Command } from './types.js';

/** Exit 0 when no live claim but the caller's holds a path in the way; the error (exit 4) names who does. */
export const pathsCheck: Command = async (board, p, io) => {
  const writes = pathFlag(p, 'writes');
  const reads = pathFlag(p, 'reads');
  const by = claimant(p, false);
  const yours = await board.checkPaths({ by, ...(writes ? { writes } : {}), ...(reads ? { reads } : {}) });
  if (has(p, 'json')) printJson(io, { paths: yours });
  else io.out(yours.length === 0 ? 'free: no live claim holds these paths' : `yours: ${[...new Set(yours.map((h) => `${h.path} (${h.mode}) on ${h.task}`))].join(', ')}`);
  return EXIT.OK;
};
