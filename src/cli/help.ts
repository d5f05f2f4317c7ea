/** What each command takes, for --help and for rejecting flags that do not apply. */
export interface CommandSpec {
  /** `command`: a command line after `--`. */
  args: 'none' | 'task' | 'text' | 'command';
  flags: string[];
  summary: string;
  /** Takes only its own flags and --file, not the common ones (--json, --write, …). */
  ownFlagsOnly?: boolean;
}

const COMMON = ['file', 'json', 'help', 'write', 'durable', 'lock-timeout'];

export const COMMANDS: Record<string, CommandSpec> = {
  list: { args: 'none', flags: ['status', 'tag', 'section'], summary: 'print the tasks (filter with --status, --tag, --section)' },
  next: { args: 'none', flags: ['by', 'lease', 'tag', 'section', 'quiet'], summary: 'claim the first claimable task in file order' },
  claim: { args: 'task', flags: ['by', 'lease', 'quiet'], summary: 'claim one task by id' },
  heartbeat: { args: 'task', flags: ['by'], summary: "renew your claim's timestamp (it keeps its lease)" },
  done: { args: 'task', flags: ['by', 'commit'], summary: 'mark your task done' },
  fail: { args: 'task', flags: ['by', 'reason'], summary: 'mark your task failed, with a reason' },
  release: { args: 'task', flags: ['by'], summary: 'give your task back, open' },
  reap: { args: 'none', flags: ['ttl', 'dry-run', 'include-untimed'], summary: 'reopen claims past their own lease, or older than --ttl (run it from cron)' },
  add: { args: 'text', flags: ['section', 'quiet'], summary: 'append an open task' },
  edit: { args: 'none', flags: [], summary: 'edit a copy in $VISUAL, $EDITOR or vi; merge it in on save' },
  lock: {
    args: 'command',
    flags: ['shared', 'lock-timeout'],
    summary: "run a command holding the board's lock (--shared: only writers wait)",
    ownFlagsOnly: true,
  },
};

const argName = (c: CommandSpec) => (c.args === 'task' ? ' <task>' : c.args === 'text' ? ' <text>' : c.args === 'command' ? ' -- <cmd>' : '');

export function allowedFlags(command: string): Set<string> {
  const c = COMMANDS[command];
  return new Set([...(c?.ownFlagsOnly ? ['file', 'help'] : COMMON), ...(c?.flags ?? [])]);
}

export const HELP = `mdclaim — race-safe task claims in a shared markdown tasks.md

Usage: mdclaim <command> [task] [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${(name + argName(c)).padEnd(18)}${c.summary}`)
  .join('\n')}

Options:
  -f, --file PATH       the board (default ./tasks.md, or MDCLAIM_FILE)
      --by ID           who claims: 1-64 of [A-Za-z0-9._:@-] (or MDCLAIM_BY;
                        next/claim make up an 8-hex id when none is given)
      --json            print exactly one JSON document on stdout (also for
                        --help and --version: {"help": …}, {"version": …})
  -q, --quiet           next/claim/add: print only the task id; next and claim
                        then need --by or MDCLAIM_BY (a made-up claimant would
                        never be shown, and nobody could finish the task)
      --lease D         next/claim: the new claim's lease, kept on its line; it
                        lapses D after its claim time, whoever looks (default
                        30m). Other claims lapse by their own lease, not by D
      --tag T           next/list: only tasks with tag T (repeat: all of them)
      --section S       next/list: only tasks under heading S or worktree S;
                        add: append to section S (created if missing)
      --status S        list: only tasks in status S
      --commit C        done: the commit that did it
      --reason R        fail: why (kept on the task's line)
      --ttl D           reap: also reopen claims older than D, whatever their
                        own lease (without it: only claims past their lease)
      --dry-run         reap: say what would be reopened, change nothing (needs
                        only read permission)
      --include-untimed reap: also reopen claims with no timestamp
      --write MODE      auto (default) or replace: always write a new file and
                        rename it over (or MDCLAIM_WRITE)
      --durable         fsync before returning
      --lock-timeout D  give up waiting for the lock after D (default 10s)
      --shared          lock: hold the lock shared (other readers run, writers wait)
  -h, --help            show this help (mdclaim <command> --help for one)
  -V, --version         print the version

An option's value is the next word, whatever it says (--tag json, --by file),
unless that word is itself one of these options (--by --json lacks a value);
--name=value always works.

Durations: 1500ms, 90s, 30m, 2h, 1d; at most 100 years.

Exit status:
    0  ok (list with no match too: no output, or {"tasks": []})
    1  runtime failure (missing or not a regular file, I/O, lock timeout, a
       board changed by a writer that ignores the lock; edit: the editor failed)
    2  usage error (unknown command or option, bad --by, bad duration; a
       tracker key on several tasks given to claim; a change the board
       would not read as meant)
    3  nothing to do: no task with that id (NOT_FOUND), or nothing claimable
    4  conflict: held by another, not the holder, already done or failed, blocked;
       edit: you and the board changed one task (your copy is kept beside it)
  141  stdout closed before everything was written (mdclaim list | head -1),
       as for a process that SIGPIPE killed
  lock passes on its command's exit status (128+n for a death by signal n)

Example:
  id=$(mdclaim next --by "$AGENT" -q) && work "$id" && mdclaim done "$id" --by "$AGENT"
`;

export function commandHelp(command: string): string {
  const c = COMMANDS[command]!;
  const flags = [...c.flags, 'file', ...(c.ownFlagsOnly ? [] : ['json'])].map((f) => `--${f}`).join(' ');
  const usageLine = c.args === 'command' ? `mdclaim ${command} [options] -- <command> [args…]` : `mdclaim ${command}${argName(c)} [options]`;
  return `${usageLine}\n\n${c.summary}.\n\nOptions: ${flags}\n(see mdclaim --help for what each means and for exit statuses)\n`;
}
