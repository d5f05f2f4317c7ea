import { selectTasks } from '../../board/select.js';
import { listedJson, listStanding, type Standing } from '../../board/standing.js';
import { waitsText } from '../../board/conflict.js';
import { spanAhead } from '../../format/span.js';
import type { Task } from '../../format/task.js';
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
  const listed = await listStanding(board, { ...(status === undefined ? {} : { status }), ...(section === undefined ? {} : { section }), tags }, '--status');
  const tasks = listed.map((l) => l.task);
  const stand = listed.map((l) => l.standing);
  if (has(p, 'json')) printJson(io, { tasks: listed.map(listedJson) });
  else {
    const states = tasks.map((t, i) => state(t, stand[i]!));
    // Loops, not Math.max(...): spreading a huge board's tasks overflows the stack.
    let w = 0;
    let sw = 0;
    let cw = 0;
    for (let i = 0; i < tasks.length; i++) {
      w = Math.max(w, tasks[i]!.id.length);
      sw = Math.max(sw, states[i]!.length);
      cw = Math.max(cw, (tasks[i]!.section ?? '-').length);
    }
    let sections = false;
    for (const t of tasks) if (t.section !== undefined) sections = true;
    // A board without headings has no section column.
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      io.out(`${t.id.padEnd(w)}  ${states[i]!.padEnd(sw)}  ${sections ? `${(t.section ?? '-').padEnd(cw)}  ` : ''}${t.text}`);
    }
  }
  return EXIT.OK;
};

/** `claimed by a1, 24m left`, `claimed by a1, lapsed`, `open, blocked by dana on PLAT-1 (src/a.ts)`, `open, waits for 9f2c41d0aa13 "…" (claimed by r1)`, `done by a1`, `open, retry in 1m (2 attempts)`. */
function state(t: Task, s: Standing): string {
  return standingText(t, s) + (t.attempts === undefined ? '' : ` (${t.attempts} attempt${t.attempts === 1 ? '' : 's'})`);
}

function standingText(t: Task, s: Standing): string {
  const by = t.by === undefined ? '' : ` by ${t.by}`;
  if (s.lapsed) return `${t.status}${by}, lapsed`;
  if (s.timeLeftMs !== undefined) return `${t.status}${by}, ${spanAhead(s.timeLeftMs)} left`;
  if (s.retryInMs !== undefined) return `${t.status}, retry in ${spanAhead(s.retryInMs)}`;
  if (s.blockedBy) return `${t.status}, blocked by ${s.blockedBy.by ?? 'someone unnamed'} on ${s.blockedBy.task} (${s.blockedBy.path})`;
  if (s.waitsFor) return `${t.status}, ${waitsText(s.waitsFor)}`;
  if (s.refused !== undefined && t.status !== 'claimed') return `${t.status}, not claimable: its line ${s.refused}`;
  return t.status + by;
}
