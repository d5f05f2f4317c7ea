import { usage } from '../errors.js';
import { has, one, parseArgs } from './args.js';
import { boardLocation } from './board-location.js';
import { EXIT } from './exit.js';
import { allowedFlags, commandHelp, COMMANDS, globalHelp } from './help.js';

import type { AnyBoard, OpenOptions } from '../open.js';
import { isPgUrl } from '../pg/url.js';
import { printJson, type Output } from './output.js';
import { version } from './version.js';

/** Run one command line; returns the exit status. Errors are thrown for the caller's single error map. */
export async function run(argv: readonly string[], io: Output): Promise<number> {
  const p = parseArgs(argv, (command) => Object.hasOwn(COMMANDS, command) && COMMANDS[command]!.args === 'command');
  // --json holds for these too: a script gets one JSON document whatever it asked.
  const show = (key: 'help', text: string): number => {
    if (has(p, 'json')) printJson(io, { [key]: text });
    else io.out(text);
    return EXIT.OK;
  };
  if (has(p, 'version')) {
    // The lock in use too: which provider loaded is the first thing to know when two installs share a board.
    const { lockInUse, lockName } = await import('../storage/lock-in-use.js');
    const [v, lock] = [await version(), lockName(lockInUse())];
    if (has(p, 'json')) printJson(io, { version: v, lock });
    else io.out(`${v} (lock: ${lock})`);
    return EXIT.OK;
  }
  if (p.command === undefined || p.command === 'help') {
    const two = p.positionals.slice(0, 2).join(' ');
    const topic = Object.hasOwn(COMMANDS, two) ? two : p.positionals[0];
    if (topic !== undefined && Object.hasOwn(COMMANDS, topic)) return show('help', commandHelp(topic).trimEnd());
    // A bare `mdclaim` is a usage error (exit 2) that teaches: the help, on stderr.
    if (p.command === undefined && !has(p, 'help')) {
      // io.err escapes control characters, newlines too: one line at a time.
      if (!has(p, 'json')) for (const line of globalHelp().trimEnd().split('\n')) io.err(line);
      throw usage('no command given: mdclaim <command> [options] (mdclaim <command> --help for one)');
    }
    return show('help', globalHelp().trimEnd());
  }
  // A command with verbs (`paths lock`): the verb is the first positional.
  const verb = p.positionals[0];
  if (verb !== undefined && Object.hasOwn(COMMANDS, `${p.command} ${verb}`)) {
    p.command = `${p.command} ${verb}`;
    p.positionals.shift();
  }
  const spec = Object.hasOwn(COMMANDS, p.command) ? COMMANDS[p.command] : undefined;
  if (!spec) throw usage(`unknown command "${p.command}" (see mdclaim --help)`);
  if (has(p, 'help')) return show('help', commandHelp(p.command).trimEnd());
  const allowed = allowedFlags(p.command);
  for (const name of p.flags.keys()) {
    if (!allowed.has(name)) throw usage(`${p.command} does not take --${name}`);
  }
  if (spec.args === 'none' && p.positionals.length > 0) throw usage(`${p.command} takes no argument, got "${p.positionals[0]}"`);
  if (spec.args === 'task' && p.positionals.length !== 1) throw usage(`${p.command} needs exactly one task id`);
  if (spec.args === 'task?' && p.positionals.length > 1) throw usage(`${p.command} takes at most one task id`);
  if (spec.args === 'paths' && p.positionals.length === 0) throw usage(`${p.command} needs the task id`);
  if (spec.args === 'text' && p.positionals.length === 0) throw usage(`${p.command} needs the task's text`);
  if (spec.args === 'path' && p.positionals.length !== 1) throw usage(`${p.command} needs exactly one file`);
  if (spec.args === 'name' && p.positionals.length !== 1) throw usage(`${p.command} needs exactly one name`);
  if (spec.args === 'command' && p.positionals.length === 0) throw usage(`${p.command} needs a command to run: mdclaim ${p.command} [options] -- <command> [args…]`);
  if (spec.args === 'command' && p.positionals[0] === '') throw usage(`${p.command}: the command's name is empty: mdclaim ${p.command} [options] -- <command> [args…]`);

  const write = one(p, 'write');
  if (write !== undefined && write !== 'auto' && write !== 'replace') throw usage(`--write must be auto or replace, got "${write}"`);
  const lockTimeout = one(p, 'lock-timeout');
  // import loads into --to; every other command works on --file (see boardLocation).
  const file = one(p, 'to') ?? boardLocation(p);
  const options: OpenOptions = {
    ...(write === undefined ? {} : { write }),
    ...(has(p, 'durable') ? { durable: true } : {}),
    ...(lockTimeout === undefined ? {} : { lockTimeout }),
    // One process, one command: one connection to a PostgreSQL board.
    pool: 1,
  };
  // Loaded only now: --help and usage errors never pay for a command or the
  // board, and a file board's call never for the PostgreSQL board's code.
  const { commands } = await import('./commands/index.js');
  // `paths lock` runs the one keyed `pathsLock`.
  const command = await commands[p.command.replace(/ (\w)/g, (_, c: string) => c.toUpperCase())]!();
  const board: AnyBoard = isPgUrl(file) ? (await import('../open.js')).openBoard(file, options) : (await import('../open-file.js')).openFileBoard(file, options);
  try {
    return await command(board, p, io);
  } finally {
    await board.close();
  }
}
