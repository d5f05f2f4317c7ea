import { MdclaimError } from '../../errors.js';
import { EXIT } from '../exit.js';
import { pgBoard } from './kind.js';
import type { Command } from './types.js';

/** The board as its tasks.md, byte for byte, on stdout (--json does not apply: the document is the output). */
export const exportBoard: Command = async (board, p, io) => {
  if (p.flags.has('json')) throw new MdclaimError('USAGE', 'export prints the board itself: --json does not apply');
  io.raw(await pgBoard(board, 'export', '--file').exportDocument());
  return EXIT.OK;
};
