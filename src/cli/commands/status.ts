import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** The board at a glance, with durations and rates from its history (none when its history cannot be read). */
export const status: Command = async (board, p, io) => {
  const section = one(p, 'section');
  const tags = p.flags.get('tag') ?? [];
  const { summarize } = await import('../../watch/summary.js');
  const { HISTORY_WINDOW_MS } = await import('../../watch/history-stats.js');
  const now = Date.now();
  const [{ tasks, blockers }, history] = await Promise.all([board.survey(), board.history({ since: now - HISTORY_WINDOW_MS }).catch(() => null)]);
  const summary = summarize(tasks, now, { tags, ...(section === undefined ? {} : { section }) }, undefined, undefined, blockers, history);
  if (has(p, 'json')) printJson(io, { board: board.location, ...summary });
  else {
    const { statusLines } = await import('../../watch/status-text.js');
    for (const line of statusLines(board.location, summary)) io.out(line);
  }
  return has(p, 'fail-on-lapsed') && summary.lapsed > 0 ? EXIT.LAPSED : EXIT.OK;
};
