import { selectTasks } from '../../board/select.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

export const list: Command = async (board, p, io) => {
  const status = one(p, 'status');
  const section = one(p, 'section');
  const tags = p.flags.get('tag') ?? [];
  // The status is checked before the board is read: a typo fails fast.
  selectTasks([], { ...(status === undefined ? {} : { status }) }, '--status');
  const tasks = selectTasks(await board.list(), { ...(status === undefined ? {} : { status }), ...(section === undefined ? {} : { section }), tags }, '--status');
  if (has(p, 'json')) printJson(io, { tasks });
  else {
    // A loop, not Math.max(...ids): spreading a huge board's tasks overflows the stack.
    let w = 0;
    for (const t of tasks) w = Math.max(w, t.id.length);
    for (const t of tasks) io.out(`${t.id.padEnd(w)}  ${(t.status + (t.by ? ` by ${t.by}` : '')).padEnd(20)}  ${t.text}`);
  }
  return EXIT.OK;
};
