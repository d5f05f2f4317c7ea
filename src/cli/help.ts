import { COMMANDS } from './help-commands.js';
import { FLAGS } from './args.js';
import { OPTIONS } from './help-options.js';

export { COMMANDS };

/** What each command takes, for --help and for rejecting flags that do not apply. */
export interface CommandSpec {
  /** `command`: everything after `--` is a command line to run. `paths`: the task, then any number of paths. `path`: one file. */
  args: 'none' | 'task' | 'text' | 'command' | 'paths' | 'path' | 'name' | 'task?';
  /** Its own options (the common ones come on top, unless ownFlagsOnly). */
  flags: string[];
  /** One line, for the list of commands. */
  summary: string;
  /** What it does, for `mdclaim <command> --help`. */
  about: string;
  /** What a shared option means for this command, where it says more than OPTIONS. */
  options?: Record<string, string>;
  /** More to know, after the options. */
  notes?: string;
  /** Command lines, at least one. */
  examples: string[];
  /** Its exit statuses, in a line. */
  exits?: string;
  /** Takes only its own flags and --file, not the common ones (--json, --write, …). */
  ownFlagsOnly?: boolean;
}

/** Every help line fits a terminal of this width. */
export const WIDTH = 80;

const COMMON = ['file', 'json', 'help', 'write', 'durable', 'lock-timeout'];

export function allowedFlags(command: string): Set<string> {
  const c = COMMANDS[command];
  return new Set([...(c?.ownFlagsOnly ? ['file', 'help'] : COMMON), ...(c?.flags ?? [])]);
}

const ARG = { none: '', task: ' <task>', text: ' <text>', command: ' -- <cmd>', paths: ' <task> [P…]', path: ' <file>', name: ' <name>', 'task?': ' [task]' } as const;

/** Words filled into lines of at most `width` characters, each line after the first indented by `indent`. */
export function wrap(text: string, width: number, indent = 0): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const pad = lines.length === 0 && line === '' ? '' : line === '' ? ' '.repeat(indent) : ' ';
    if (line !== '' && [...line].length + 1 + [...word].length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line += pad + word;
  }
  lines.push(line);
  return lines.join('\n');
}

/** `label  text` rows: labels in a column, texts wrapped beside them (under them when a label is too wide). */
function table(rows: Array<[string, string]>, column: number): string {
  return rows
    .map(([label, text]) => {
      const head = `  ${label}`;
      if (head.length + 2 > column) return `${head}\n${' '.repeat(column)}${wrap(text, WIDTH - column, 0).replace(/\n/g, `\n${' '.repeat(column)}`)}`;
      return head.padEnd(column) + wrap(text, WIDTH - column, 0).replace(/\n/g, `\n${' '.repeat(column)}`);
    })
    .join('\n');
}

const GLOBAL_OPTIONS = ['file', 'json', 'write', 'durable', 'lock-timeout', 'help', 'version'];

/** `mdclaim --help`: the commands in a line each, the options every command takes, what ids, durations and exit statuses mean. */
export function globalHelp(): string {
  const commands = Object.entries(COMMANDS).map(([name, c]): [string, string] => [name + ARG[c.args], c.summary]);
  return `mdclaim — race-safe task claims in a shared markdown tasks.md

Usage: mdclaim <command> [arguments] [options]
       mdclaim <command> --help    what it does, its options, examples

Commands:
${table(commands, 28)}

Options every command takes:
${table(GLOBAL_OPTIONS.map((f) => [OPTIONS[f]!.label, OPTIONS[f]!.text]), 24)}

${wrap('An option\'s value is the next word, whatever it says (--tag json), unless that word is itself an option (--by --json lacks a value); --name=value always works.', WIDTH)}

${wrap('Ids: a task answers to the tracker key its text starts with (PLAT-12) while no other task has it, else to a 12-hex hash of its text; the start of an id (4 characters or more) works wherever it names one task.', WIDTH, 2)}

Durations: 1500ms, 90s, 30m, 2h, 1d; at most 100 years.

Exit status:
    0  ok (list with no match too: no output, or {"tasks": []})
    1  runtime failure: a missing board, I/O, lock timeout, a board changed by
       a writer that ignores the lock, no database server; edit: the editor
       failed; run: the command failed, its task is failed
    2  usage error: unknown command or option, bad --by or duration, an
       ambiguous id; no command at all (this help, on stderr)
    3  nothing to do: no task with that id (NOT_FOUND), or nothing claimable;
       paths unlock: no lock on that path
    4  conflict: held by another, not the holder, already done or failed,
       blocked, a path held by a live claim; edit: you and the board changed
       one task; run: the claim was lost while the command ran
    5  status --fail-on-lapsed: a claim is past its lease
  129  run, mcp, watch: stopped by SIGHUP (130: SIGINT, 143: SIGTERM)
  141  stdout closed before everything was written (mdclaim list | head -1)
  lock passes on its command's exit status (128+n for a death by signal n)

Example (npx runs the mdclaim your project installed):
  id=$(npx mdclaim next --by "$AGENT" -q) && work "$id" &&
    npx mdclaim done "$id" --by "$AGENT"
`;
}

/** `mdclaim <command> --help`: usage, what it does, each option in words, notes, examples, exit statuses. */
export function commandHelp(command: string): string {
  const c = COMMANDS[command]!;
  const usageLine = c.args === 'command' ? `mdclaim ${command} [options] -- <command> [args…]` : `mdclaim ${command}${ARG[c.args]} [options]`;
  const own = [...c.flags, 'file', ...(c.ownFlagsOnly ? [] : ['json'])];
  const rows = own.map((f): [string, string] => [labelFor(f, command), c.options?.[f] ?? OPTIONS[f]!.text]);
  if (!c.ownFlagsOnly) rows.push(['--write, --durable, --lock-timeout', 'how the board is written and how long to wait for its lock (see mdclaim --help)']);
  const parts = [`Usage: ${usageLine}`, wrap(c.about, WIDTH), `Options:\n${table(rows, 24)}`];
  if (c.notes !== undefined) parts.push(wrap(c.notes, WIDTH));
  parts.push(`Example${c.examples.length > 1 ? 's' : ''}:\n${c.examples.map((e) => `  ${e}`).join('\n')}`);
  if (c.exits !== undefined) parts.push(wrap(`Exit status: ${c.exits}; 2 usage.`, WIDTH, 2));
  return parts.join('\n\n') + '\n';
}

/** An option's label in a command's help: a flag that is a switch there (run --commit) is labelled as one. */
export function labelFor(flag: string, command: string): string {
  return FLAGS[flag]?.switchIn?.includes(command) ? `--${flag}` : OPTIONS[flag]!.label;
}
