import { pathsBase } from '../../board/capabilities.js';
import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { asker, printJson } from '../output.js';
import { resolve } from 'node:path';
import { withTargets } from '../../platform/followed-path.js';
import { sharedNames } from './same-file-names.js';
import { pathFlag } from './path-flags.js';
import type { Command } from './types.js';

/** Exit 0 when no live claim but the caller's holds a path in the way; the error (exit 4) names who does. Without --by every hold is another's. */
export const pathsCheck: Command = async (any, p, io) => {
  const by = asker(p, 'check');
  // Paths are the board's directory's (a database board's: the current directory's), each asked about under every name a write through it touches.
  const base = pathsBase(any, process.cwd());
  const follow = async (paths: string[] | undefined) => {
    if (!paths) return paths;
    const names = withTargets(base, paths);
    // Through a hard link, the held name it shares its file with.
    return [...names, ...(await sharedNames(any, base, paths.map((q) => resolve(base, q)))).filter((n) => !names.includes(n))];
  };
  const writes = await follow(pathFlag(p, 'writes'));
  const reads = await follow(pathFlag(p, 'reads'));
  const yours = await any.checkPaths({ by, ...(writes ? { writes } : {}), ...(reads ? { reads } : {}) });
  if (has(p, 'json')) printJson(io, { paths: yours });
  else io.out(yours.length === 0 ? 'free: no live claim holds these paths' : `yours: ${[...new Set(yours.map((h) => `${h.path} (${h.mode}) on ${h.task}`))].join(', ')}`);
  return EXIT.OK;
};
