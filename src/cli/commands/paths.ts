import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** Who holds which path: one line a path, or `{"paths": [...]}`. */
export const paths: Command = async (board, p, io) => {
  const held = await board.paths();
  if (has(p, 'json')) printJson(io, { paths: held });
  else {
    // A loop, not a spread: a spread of many thousands of arguments overflows the stack.
    let w = 0;
    for (const h of held) w = Math.max(w, h.path.length);
    for (const h of held) io.out(`${h.mode.padEnd(5)}  ${h.path.padEnd(w)}  ${h.by ?? '(unnamed)'} on ${h.task} (${h.kind}${h.since ? ` since ${h.since}` : ''})`);
  }
  return EXIT.OK;
};
