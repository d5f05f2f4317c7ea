import { readFileSync } from 'node:fs';
import { MdclaimError } from '../../errors.js';
import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import { pgBoard } from './kind.js';
import type { Command } from './types.js';

export const importBoard: Command = async (board, p, io) => {
  if (!p.flags.has('to')) throw new MdclaimError('USAGE', 'import needs --to postgres://user@host:port/db?board=NAME');
  const pg = pgBoard(board, 'import', '--to');
  const file = p.positionals[0]!;
  let doc: Buffer;
  try {
    doc = readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new MdclaimError('IO', `${file}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.message}`, { file, cause: err });
  }
  let out: { tasks: number; replaced: number };
  try {
    out = await pg.importDocument(doc, { replace: has(p, 'replace'), onProgress: (done, total) => io.progress?.(`importing: ${done} of ${total} tasks`) });
  } finally {
    io.progress?.('');
  }
  if (has(p, 'json')) printJson(io, { imported: out.tasks, replaced: out.replaced, board: pg.location });
  else io.out(`imported ${out.tasks} task${out.tasks === 1 ? '' : 's'} from ${file} to ${pg.location}${out.replaced ? ` (replacing ${out.replaced})` : ''}`);
  return EXIT.OK;
};
