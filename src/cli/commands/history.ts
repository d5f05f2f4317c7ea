import type { HistoryEvent } from '../../board/types.js';
import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson, taskArg } from '../output.js';
import type { Command } from './types.js';

export const history: Command = async (board, p, io) => {
  const events = await board.history(taskArg(p));
  if (has(p, 'json')) printJson(io, { events });
  else for (const e of events) io.out(line(e));
  if (events.length === 0 && !has(p, 'json')) io.err(`no history for ${taskArg(p)}`);
  return events.length === 0 ? EXIT.NO_TASK : EXIT.OK;
};

function line(e: HistoryEvent): string {
  const who = e.by === undefined ? '' : ` by ${e.by}`;
  const from = e.from === undefined ? '' : ` from ${e.from}`;
  const claim = e.claimedAt === undefined ? '' : ` at ${e.claimedAt}${e.lease ? ` for ${e.lease}` : ''}`;
  const extra = e.commit ? ` (${e.commit})` : e.reason ? `: ${e.reason}` : '';
  return `${e.at}  ${e.event}${who}${from}${claim}${extra}  [${e.via}]`;
}
