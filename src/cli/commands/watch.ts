import { isTerminal } from '../../builtins.js';
import { usage } from '../../errors.js';
import { one } from '../args.js';
import type { Command } from './types.js';

export const watch: Command = async (board, p) => {
  if (!isTerminal(0) || !isTerminal(1)) throw usage('watch needs a terminal on stdin and stdout (for scripts: mdclaim status, or status --json)');
  const section = one(p, 'section');
  const tags = p.flags.get('tag') ?? [];
  // Loaded only now: the terminal's modules and string-width cost the other commands nothing.
  const [{ watchBoard }, { Terminal }, { terminalStyle }] = await Promise.all([
    import('../../watch/watch.js'),
    import('../../watch/terminal.js'),
    import('../../watch/style.js'),
  ]);
  const terminal = new Terminal(process.stdout, process.stdin);
  return watchBoard(board, {
    location: board.location,
    filter: { tags, ...(section === undefined ? {} : { section }) },
    changes: await board.changes(),
    terminal,
    style: await terminalStyle(process.env, true),
  });
};
