import { resolve } from 'node:path';
import { STARTER_BOARD } from '../../file/starter.js';
import { agentInstructions } from '../agents.js';
import { parseTasks } from '../../parse.js';
import { createExclusive } from '../../storage/create.js';
import { journalOf, startJournal } from '../../storage/journal.js';
import { has } from '../args.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import { fileBoard } from './kind.js';
import type { Command } from './types.js';

/**
 * `mdclaim init`: write a starter board where none is (never over one), and
 * say what to run next. `--agents` writes nothing: it prints the lines an
 * AGENTS.md or CLAUDE.md needs, so `mdclaim init --agents >> AGENTS.md` works.
 */
export const init: Command = async (any, p, io) => {
  const file = fileBoard(any, 'init', 'npx mdclaim add "text" --file URL, or npx mdclaim import tasks.md --to URL').path;
  const flag = file === './tasks.md' || file === 'tasks.md' ? '' : ` --file ${file}`;
  if (has(p, 'agents')) {
    const text = agentInstructions(file, resolve(file));
    if (has(p, 'json')) printJson(io, { agents: text });
    else io.out(text.trimEnd());
    return EXIT.OK;
  }
  createExclusive(file, Buffer.from(STARTER_BOARD));
  // The board's history is kept where its journal exists (docs/FORMAT.md): made empty here, unless --no-history.
  if (!has(p, 'no-history')) startJournal(journalOf(file));
  const tasks = parseTasks(STARTER_BOARD);
  const sections = new Set(tasks.map((t) => t.section)).size;
  if (has(p, 'json')) {
    printJson(io, { created: file, tasks: tasks.length, sections, history: !has(p, 'no-history') });
    return EXIT.OK;
  }
  io.out(`created ${file}: ${tasks.length} tasks in ${sections} sections (edit them, or npx mdclaim add "text"${flag})`);
  io.out('next:');
  const steps = [
    [`npx mdclaim list${flag}`, 'see the board'],
    [`npx mdclaim next${flag} --by me`, 'claim the first claimable task'],
    [`npx mdclaim done <id>${flag} --by me`, 'finish it (or fail <id> --reason "why")'],
    [`npx mdclaim run${flag} -- sh -c 'echo "$MDCLAIM_TASK_TEXT"'`, 'have a command work a task'],
    [`npx mdclaim init${flag} --agents >> AGENTS.md`, 'teach your agents the loop'],
  ] as const;
  // One column for the commands, as wide as the widest: the explanations line up.
  const width = Math.max(...steps.map(([cmd]) => cmd.length));
  for (const [cmd, what] of steps) io.out(`  ${cmd.padEnd(width)}  # ${what}`);
  return EXIT.OK;
};
