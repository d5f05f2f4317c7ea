import { pathsBase } from '../../board/capabilities.js';
import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { asker, printJson } from '../output.js';
import { namesTouched } from '../../platform/same-file.js';
import { pathFlag } from './path-flags.js';
import type { Command } from './types.js';

/** Exit 0 when no live claim but the caller's holds a path in the way; the error (exit 4) names who does. Without --by every hold is another's. */
export const pathsCheck: Command = async (any, p, io) => {
  const by = asker(p, 'check');
  // Paths are the board's directory's (a database board's: the current directory's), each asked about under every name a write through it touches.
  const base = pathsBase(any, process.cwd());
  const held = async () => (await any.paths()).map((h) => h.path);
  const follow = async (paths: string[] | undefined) => paths && (await namesTouched(base, paths, held));
  const writes = await follow(pathFlag(p, 'writes'));
  const reads = await follow(pathFlag(p, 'reads'));
  const yours = await any.checkPaths({ by, ...(writes ? { writes } : {}), ...(reads ? { reads } : {}) });
  if (has(p, 'json')) printJson(io, { paths: yours });
  else io.out(yours.length === 0 ? 'free: no live claim holds these paths' : `yours: ${[...new Set(yours.map((h) => `${h.path} (${h.mode}) on ${h.task}`))].join(', ')}`);
  return EXIT.OK;
};
