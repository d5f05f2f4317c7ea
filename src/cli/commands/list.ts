import { sectionMatches } from '../../board/claim.js';
import { checkSection } from '../../board/checks.js';
import { usage } from '../../errors.js';
import { has, one } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import type { Command } from './types.js';

const STATUSES = ['open', 'blocked', 'claimed', 'done', 'failed'];

export const list: Command = async (board, p, io) => {
  const status = one(p, 'status');
  if (status !== undefined && !STATUSES.includes(status)) throw usage(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
  const named = one(p, 'section');
  const section = named === undefined ? undefined : checkSection(named);
  const tags = p.flags.get('tag') ?? [];
  const tasks = (await board.list()).filter(
    (t) => (status === undefined || t.status === status) && (section === undefined || sectionMatches(t.section, section)) && tags.every((g) => t.tags.includes(g)),
  );
  if (has(p, 'json')) printJson(io, { tasks });
  else {
    // A loop, not Math.max(...ids): spreading a huge board's tasks overflows the stack.
    let w = 0;
    for (const t of tasks) w = Math.max(w, t.id.length);
    for (const t of tasks) io.out(`${t.id.padEnd(w)}  ${(t.status + (t.by ? ` by ${t.by}` : '')).padEnd(20)}  ${t.text}`);
  }
  return EXIT.OK;
};
