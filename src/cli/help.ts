/** What each command takes, for --help and for rejecting flags that do not apply. */
export interface CommandSpec {
  /** `command`: everything after the options (after `--`) is a command line to run. `paths`: the task, then any number of paths. `path`: one file. */
  args: 'none' | 'task' | 'text' | 'command' | 'paths' | 'path';
  flags: string[];
  summary: string;
  /** More than a summary, for `mdclaim <command> --help`. */
  details?: string;
  /** Takes only its own flags and --file, not the common ones (--json, --write, …). */
  ownFlagsOnly?: boolean;
}

const RUN_DETAILS = `Claims a task with next, runs the command with the task in its environment
(MDCLAIM_TASK_ID, MDCLAIM_TASK_TEXT, MDCLAIM_TASK_TAGS, MDCLAIM_TASK_WRITES,
MDCLAIM_TASK_READS, MDCLAIM_SECTION, MDCLAIM_BY, MDCLAIM_FILE), heartbeats while it runs, then marks the task done
(exit 0, with the commit of git rev-parse --short HEAD) or failed (the exit
status and the last stderr line). The command runs in its own process group;
stdin is /dev/null. The claim is renewed just before the command starts, so it
never starts on a claim that lapsed. If a heartbeat finds the claim gone
(taken over, reaped, edited away), the command is stopped and nothing is
written. However a task ends, whatever its command left in its group gets
SIGTERM, then SIGKILL after --grace, before the task's end is written.

  --lease D          each claim's lease, at least 2s (default 30m); heartbeats
                     every min(D/3, (D-1s)/2)
  --tag T, --section S   only such tasks
  --loop             keep claiming; poll every --interval when idle
  --interval D       the poll interval, jittered by 20% (default 5s)
  --until-settled    loop until no matching task could still become claimable
                     (one under a failed task or an untimed claim, or wanting
                     paths an untimed claim holds, never can)
  --concurrency K    run up to K tasks at once, output prefixed with [id]
  --max N            stop claiming after N tasks (default: K, or none with --loop)
  --grace D          after SIGTERM/SIGINT, wait D before SIGKILL (default 10s)
                     (any duration: 30d waits 30 days)
  --fail-on-signal   on SIGTERM/SIGINT mark running tasks failed, not open
  --no-commit        do not record the commit
  --events FILE      append one JSON event per line to FILE; one that stops
                     taking writes is reported once (error[IO]), the run goes on
  --by ID            who claims (default: a new run-XXXXXXXX, printed once)
  -f, --file PATH    the board (default ./tasks.md, or MDCLAIM_FILE); also
                     --write, --durable, --lock-timeout as for every command

SIGINT/SIGTERM/SIGHUP: stop claiming, pass the signal to the commands (SIGTERM
for a hangup), wait up to --grace, release their tasks, exit 130/143/129; a
second signal kills at once. A stdout whose reader left (run … | head -1)
stops the run the same way, exit 141.
Killed outright (SIGKILL), the runner takes its commands with it: its
watchdog sends their groups SIGTERM, SIGKILL after --grace; the claims are
left for the reaper.

Exit status: 0 task done (with --loop: stopped by --max or --until-settled),
1 the command failed, 3 nothing claimable, 4 the claim was lost, 2 usage,
129/130/143 stopped by SIGHUP/SIGINT/SIGTERM, 141 stdout closed.

Example:
  mdclaim run --loop --tag backend -- sh -c 'claude -p "$MDCLAIM_TASK_TEXT"'
`;

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
  history: { args: 'task', flags: [], summary: "a task's events: claimed, renewed, taken over, done, … (PostgreSQL board)" },
  import: { args: 'path', flags: ['to', 'replace'], summary: 'load a tasks.md into a PostgreSQL board (--to URL)' },
  export: { args: 'none', flags: ['from'], summary: 'print a PostgreSQL board as its tasks.md (--from URL)' },
  migrate: { args: 'none', flags: [], summary: "create or upgrade the PostgreSQL board's schema" },
  edit: { args: 'none', flags: [], summary: 'edit a copy in $VISUAL, $EDITOR or vi; merge it in on save' },
  paths: { args: 'none', flags: [], summary: 'list the paths live claims hold: declared on their line or locked' },
  'paths lock': { args: 'task', flags: ['by', 'writes', 'reads'], summary: 'lock paths for your task while you work (exit 4 when one is held)' },
  'paths unlock': { args: 'paths', flags: ['by'], summary: "let go of your task's locks on these paths (all without any)" },
  'paths check': { args: 'none', flags: ['by', 'writes', 'reads'], summary: 'exit 0 when no one else holds these paths, 4 naming who does' },
  lock: {
    args: 'command',
    flags: ['shared', 'lock-timeout'],
    summary: "run a command holding the board's lock (--shared: only writers wait)",
    ownFlagsOnly: true,
  },
  run: {
    args: 'command',
    flags: ['by', 'lease', 'tag', 'section', 'loop', 'interval', 'concurrency', 'max', 'until-settled', 'grace', 'events', 'fail-on-signal', 'no-commit'],
    summary: 'claim tasks and run a command for each: heartbeat, then done or failed',
    details: RUN_DETAILS,
  },
};

const ARG = { none: '', task: ' <task>', text: ' <text>', command: ' -- <cmd>', paths: ' <task> [P…]', path: ' <file>' } as const;
const argName = (c: CommandSpec): string => ARG[c.args];
const WIDTH = 2 + Math.max(...Object.entries(COMMANDS).map(([name, c]) => name.length + argName(c).length));

export function allowedFlags(command: string): Set<string> {
  const c = COMMANDS[command];
  return new Set([...(c?.ownFlagsOnly ? ['file', 'help'] : COMMON), ...(c?.flags ?? [])]);
}

export const HELP = `mdclaim — race-safe task claims in a shared markdown tasks.md

Usage: mdclaim <command> [task] [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${(name + argName(c)).padEnd(WIDTH)}${c.summary}`)
  .join('\n')}

Options:
  -f, --file PATH|URL   the board: a file (default ./tasks.md), or a PostgreSQL
                        board postgres://user@host:port/db?board=NAME
                        (or MDCLAIM_FILE)
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
      --writes P        paths lock/check: a path you write (repeat for more);
                        a directory ends in /, relative to the board's directory
      --reads P         paths lock/check: a path you only read (readers share)
      --commit C        done: the commit that did it
      --reason R        fail: why (kept on the task's line)
      --ttl D           reap: also reopen claims older than D, whatever their
                        own lease (without it: only claims past their lease)
      --dry-run         reap: say what would be reopened, change nothing (needs
                        only read permission)
      --include-untimed reap: also reopen claims with no timestamp
      --to URL          import: the PostgreSQL board to load into
      --replace         import: overwrite a board that already has tasks
      --from URL        export: the PostgreSQL board to print
      --write MODE      auto (default) or replace: always write a new file and
                        rename it over (or MDCLAIM_WRITE); file boards only
      --durable         fsync before returning (PostgreSQL: synchronous_commit=on)
      --lock-timeout D  give up waiting for the lock after D (default 10s;
                        PostgreSQL: each wait for a row or board lock)
      --shared          lock: hold the lock shared (other readers run, writers wait)
      --loop, --interval D, --until-settled, --concurrency K, --max N,
      --grace D, --events FILE, --fail-on-signal, --no-commit
                        run: see mdclaim run --help
  -h, --help            show this help (mdclaim <command> --help for one)
  -V, --version         print the version

An option's value is the next word, whatever it says (--tag json, --by file),
unless that word is itself one of these options (--by --json lacks a value);
--name=value always works.

Durations: 1500ms, 90s, 30m, 2h, 1d; at most 100 years.

Exit status:
    0  ok (list with no match too: no output, or {"tasks": []})
    1  runtime failure (missing or not a regular file, I/O, lock timeout, a
       board changed by a writer that ignores the lock, no database server;
       edit: the editor
       failed; run: the command failed, its task is failed)
    2  usage error (unknown command or option, bad --by, bad duration; a
       tracker key on several tasks given to claim; a change the board
       would not read as meant)
    3  nothing to do: no task with that id (NOT_FOUND), or nothing claimable;
       paths unlock: no lock on that path
    4  conflict: held by another, not the holder, already done or failed, blocked;
       a path it declares (or you name) held by a live claim; edit: you and the
       board changed one task (your copy is kept beside it); run: the claim
       was lost while the command ran
  130  run: stopped by SIGINT (143: by SIGTERM)
  141  stdout closed before everything was written (mdclaim list | head -1),
       as for a process that SIGPIPE killed
  lock passes on its command's exit status (128+n for a death by signal n)

Paths: a task line may declare {writes: src/a.ts, src/lib/} and {reads: docs/};
  it cannot be claimed while a live claim on another task holds a path in the
  way (a write against anything, a read against a write). next skips it.

Example:
  id=$(mdclaim next --by "$AGENT" -q) && work "$id" && mdclaim done "$id" --by "$AGENT"
`;

export function commandHelp(command: string): string {
  const c = COMMANDS[command]!;
  if (c.details !== undefined) return `mdclaim ${command} [options]${argName(c)} [args…]\n\n${c.summary}.\n\n${c.details}`;
  const flags = [...c.flags, 'file', ...(c.ownFlagsOnly ? [] : ['json'])].map((f) => `--${f}`).join(' ');
  const usageLine = c.args === 'command' ? `mdclaim ${command} [options] -- <command> [args…]` : `mdclaim ${command}${argName(c)} [options]`;
  return `${usageLine}\n\n${c.summary}.\n\nOptions: ${flags}\n(see mdclaim --help for what each means and for exit statuses)\n`;
}
