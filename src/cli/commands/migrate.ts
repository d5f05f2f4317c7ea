import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import { pgBoard } from './kind.js';
import type { Command } from './types.js';

export const migrate: Command = async (board, p, io) => {
  const pg = pgBoard(board, 'migrate', '--file');
  const { from, to } = await pg.migrate();
  if (has(p, 'json')) printJson(io, { from, to });
  else io.out(from === to ? `schema is at version ${to}, nothing to do` : `migrated the schema from version ${from} to ${to}`);
  return EXIT.OK;
};
