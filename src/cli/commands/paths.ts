import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** Who holds which path: one line a path, or `{"paths": [...]}`. */
export const paths: Command = async (board, p, io) => {
  const held = await board.paths();
  if (has(p, 'json')) printJson(io, { paths: held });
  else {
    const w = Math.max(0, ...held.map((h) => h.path.length));
    for (const h of held) io.out(`${h.mode.padEnd(5)}  ${h.path.padEnd(w)}  ${h.by ?? '(unnamed)'} on ${h.task} (${h.kind}${h.since ? ` since ${h.since}` : ''})`);
  }
  return EXIT.OK;
};
