import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

export const status: Command = async (board, p, io) => {
  const section = one(p, 'section');
  const tags = p.flags.get('tag') ?? [];
  const { summarize } = await import('../../watch/summary.js');
  const { tasks, blockers } = await board.survey();
  const summary = summarize(tasks, Date.now(), { tags, ...(section === undefined ? {} : { section }) }, undefined, undefined, blockers);
  if (has(p, 'json')) printJson(io, { board: board.location, ...summary });
  else {
    const { statusLines } = await import('../../watch/status-text.js');
    for (const line of statusLines(board.location, summary)) io.out(line);
  }
  return has(p, 'fail-on-lapsed') && summary.lapsed > 0 ? EXIT.LAPSED : EXIT.OK;
};
