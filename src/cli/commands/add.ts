import { textWaiting } from '../../board/after.js';
import { named } from '../../format/named.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { changed } from '../output.js';
import type { Command } from './types.js';

export const add: Command = async (board, p, io) => {
  const section = one(p, 'section');
  // `--after ID`: the tasks it waits for, by whole id (the start of one is resolved now), written as `{after: …}`.
  const refs = p.flags.get('after')?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '') ?? [];
  const text = await textWaiting(p.positionals.join(' '), refs, () => board.list());
  const t = await board.add(text, section === undefined ? {} : { section });
  if (has(p, 'quiet') && !has(p, 'json')) io.out(t.id);
  else changed(t, p, io, `added ${named(t)} at line ${t.line}${t.section ? ` in "${t.section}"` : ''}`);
  return EXIT.OK;
};
