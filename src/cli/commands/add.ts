import { named } from '../../format/named.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { changed } from '../output.js';
import type { Command } from './types.js';

export const add: Command = async (board, p, io) => {
  const section = one(p, 'section');
  const t = await board.add(p.positionals.join(' '), section === undefined ? {} : { section });
  if (has(p, 'quiet') && !has(p, 'json')) io.out(t.id);
  else changed(t, p, io, `added ${named(t)} at line ${t.line}${t.section ? ` in "${t.section}"` : ''}`);
  return EXIT.OK;
};
