import { existsSync } from 'node:fs';
import type { AnyBoard } from '../../open.js';
import type { HistoryEvent, HistoryOptions } from '../../board/types.js';
import { parseDuration } from '../../board/duration.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

/** `mdclaim history [ID] [--since D] [--by NAME]`: the same lines on both boards, newest last. */
export const history: Command = async (board, p, io) => {
  const id = p.positionals[0];
  const since = one(p, 'since');
  const by = one(p, 'by');
  const options: HistoryOptions = {
    ...(id === undefined ? {} : { id }),
    ...(since === undefined ? {} : { since: Date.now() - parseDuration(since, '--since') }),
    ...(by === undefined ? {} : { by }),
  };
  const events = await board.history(options);
  if (has(p, 'json')) printJson(io, { events });
  else for (const e of events) io.out(historyLine(e));
  if (events.length === 0 && !has(p, 'json')) {
    const none = missingJournal(board);
    io.err(`no history${id === undefined ? '' : ` for ${id}`}${none === null ? '' : `: ${board.location} keeps none (touch ${none} to start one)`}`);
  }
  return events.length === 0 ? EXIT.NO_TASK : EXIT.OK;
};

/** Where a file board that keeps no history would keep its journal (said, so an empty answer is not taken for a quiet board); null when it keeps one, or has one that is turned off. */
function missingJournal(board: AnyBoard): string | null {
  if (board.keepsHistory || board.kind !== 'file') return null;
  return existsSync(board.journal) ? null : board.journal;
}

/** One event, as a line: when (to the millisecond, as both boards can say it), what, which task, who, and what came with it. */
export function historyLine(e: HistoryEvent): string {
  const who = e.by === undefined ? '' : ` by ${e.by}`;
  const from = e.from === undefined ? '' : ` from ${e.from}`;
  const claim = e.claimedAt === undefined ? '' : ` at ${e.claimedAt}${e.lease ? ` for ${e.lease}` : ''}`;
  const paths = e.paths === undefined ? '' : ` ${e.paths.join(' ')}`;
  const extra = e.commit ? ` (${e.commit})` : e.reason ? `: ${e.reason}` : '';
  const at = Number.isFinite(Date.parse(e.at)) ? new Date(Date.parse(e.at)).toISOString() : e.at;
  return `${at}  ${e.id}  ${e.event}${who}${from}${claim}${paths}${extra}  [${e.via}]`;
}
