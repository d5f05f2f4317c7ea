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

const INIT_DETAILS = `Writes a short starter board (two sections, open tasks, a [⏰] task, tags,
a {writes: …} declaration) at --file, default ./tasks.md, and prints what to
run next. It never writes over an existing file: that is exit 2, the file
untouched.

  --agents           write nothing; print the lines an AGENTS.md or CLAUDE.md
                     needs to teach an agent the loop (next, heartbeat,
                     done/fail, exit statuses, the MCP route)
  -f, --file PATH    the board to create (default ./tasks.md, or MDCLAIM_FILE)
  --json             {"created", "tasks", "sections"}, or {"agents": text}

Exit status: 0 created (or printed), 2 the file exists or a usage error,
1 it cannot be created (no such directory, permission, full disk).

Examples:
  mdclaim init && mdclaim next --by me
  mdclaim init --agents >> AGENTS.md
`;

const WATCH_DETAILS = `A full-screen view of the board that follows it as other processes change
it, without a keypress, until you quit. It only reads the board.

  header    counts by status, a progress bar per section (done of all), and
            the rate of done tasks over the last 5 minutes watched
  Claims    holder, task, how long held, time left on the lease counting down;
            a claim past its lease is LAPSED (it waits for a reaper or a
            taker); an ADW claim with no time is untimed (it never lapses)
  Paths     who holds which paths (declared on a task's line, or locked)
  Blocked   tasks a held path or a [⏰] (a task above not done) keeps waiting
  Events    claimed, taken over, done, failed (with the reason), released,
            reaped: told from the difference between two readings
  Failed    the failed tasks and their reasons

  --tag T, --section S   count and show only such tasks (holds anywhere on
                     the board still block them)
  -f, --file PATH|URL    the board (default ./tasks.md, or MDCLAIM_FILE)

Keys: q or Ctrl-C quits (exit 0), ? shows the keys; a resize redraws.
A file board is read under its shared lock when its directory reports a
change, and every 2s besides; a PostgreSQL board on its NOTIFY, and when a
poll of its history (every 1s) sees a change. At most 4 redraws a second.
A board that cannot be read (replaced, locked long, the server away) is
said on screen with the last reading kept, and tried again.
Colour unless NO_COLOR is set or TERM=dumb; emoji and bars in a UTF-8
locale, ASCII otherwise. Needs a terminal: for scripts use mdclaim status.

Exit status: 0 quit with q or Ctrl-C (or SIGINT), 143 SIGTERM, 129 SIGHUP,
2 usage (no terminal).

Example:
  mdclaim watch -f postgres://ci@db/work?board=sprint --tag backend
`;

const STATUS_DETAILS = `The summary mdclaim watch shows, once: for scripts, cron mail and CI logs.
Counts by status and per section, every claim (live with its time left,
lapsed, untimed), the oldest claim, the paths held and by whom, the tasks
blocked by a path or by a [⏰], and the failed tasks with their reasons.

  --json             one JSON document: board, at, counts {open, blocked,
                     claimed, done, failed, total}, sections [{name, done,
                     total}], claims [{id, text, by, claimedAt, lease,
                     expiresAt, state: live|lapsed|untimed, heldMs, leftMs}],
                     live, lapsed, untimed, oldestClaim, paths [{path, mode,
                     kind, task, by}], blocked [{id, text, reason: path|above,
                     …}], failures [{id, text, by, reason}], doneRate (null:
                     a rate needs watching; see mdclaim watch)
  --fail-on-lapsed   exit 5 when a claim (among those shown) is past its
                     lease, so a cron job can alert
  --tag T, --section S   only such tasks
  -f, --file PATH|URL    the board (default ./tasks.md, or MDCLAIM_FILE)

Exit status: 0, or 5 with --fail-on-lapsed when a claim has lapsed; 1 the
board cannot be read; 2 usage.

Example (cron):
  */5 * * * * mdclaim status -f /srv/tasks.md --fail-on-lapsed >/dev/null || mail …
`;

const MCP_DETAILS = `Serves the board to an agent over the Model Context Protocol on stdin/stdout.
The agent calls tools: next, claim, heartbeat, done, fail, release, list, add,
paths_check, paths_lock, paths_unlock. Each answers with the JSON --json
prints ({"task": …}, {"task": null} when nothing is claimable, {"tasks": […]});
a refusal is a tool error whose text is the CLI's line, error[CODE]: message.

The session is the holder: it claims as --by (or MDCLAIM_BY, or a new
mcp-XXXXXXXX told to the agent when it connects). While the agent is connected
every claim it holds is renewed on run's schedule (min(D/3, (D-1s)/2)), so it
never lapses under a live session; each write names the claim time the session
last wrote, so a claim another session took over is never finished or renewed
(the next call on it says so). When the client disconnects (stdin closes) or on
SIGTERM/SIGINT/SIGHUP, every claim still held is released before exiting;
killed outright, its claims lapse after their lease, for the reaper.

  --by ID            who this session claims as
  --lease D          the lease of a claim that names none, at least 2s
                     (default 5m: renewed while connected, so a dead session's
                     claims come back soon)
  -f, --file PATH|URL   the board; also --write, --durable, --lock-timeout

Nothing but the protocol goes to stdout; one line to stderr on start and end.

Claude Code:
  claude mcp add mdclaim -- npx --no-install mdclaim mcp --file /abs/tasks.md
Any client (an "mcpServers" entry):
  "mdclaim": { "command": "npx", "args": ["--no-install", "mdclaim", "mcp", "--file", "/abs/tasks.md"] }

Exit status: 0 the client disconnected, 129/130/143 ended by SIGHUP/SIGINT/SIGTERM,
2 usage (bad --by or --lease).
`;

const GUARD_DETAILS = `For editor hooks that run before a file is written. Reads the hook's JSON
on stdin (Claude Code's PreToolUse input: {"tool_name": "Edit", "tool_input":
{"file_path": "/abs/src/a.ts", …}, "cwd": …}) and, when a live claim of
someone else holds that file (declared {writes: …}/{reads: …} on its line, or
locked with paths lock), prints the deny answer naming the holder:
  {"hookSpecificOutput": {"hookEventName": "PreToolUse",
   "permissionDecision": "deny", "permissionDecisionReason": "…"}}
Otherwise it prints nothing (the editor's own permission rules still apply).
A file outside the board's directory is always allowed. Exit 0 either way.

"Someone else" is any holder but --by (or MDCLAIM_BY): give the agent the name
its claims are made under. Without one, every live claim counts.

  --by ID            whose claims do not count against the write
  -f, --file PATH|URL   the board (a PostgreSQL board's paths are relative to
                     the hook's cwd)

Claude Code (.claude/settings.json):
  {"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
    "hooks": [{"type": "command",
      "command": "npx --no-install mdclaim guard --file /abs/tasks.md"}]}]}}

Exit status: 0 answered (deny or allow); 1 the board could not be read (the
editor goes on); 2 the input was not a hook's JSON (Claude Code blocks the
call and shows the line).
`;

const COMMON = ['file', 'json', 'help', 'write', 'durable', 'lock-timeout'];

export const COMMANDS: Record<string, CommandSpec> = {
  init: {
    args: 'none',
    flags: ['agents', 'json'],
    summary: 'write a starter tasks.md where none exists',
    details: INIT_DETAILS,
    ownFlagsOnly: true,
  },
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
  mcp: { args: 'none', flags: ['by', 'lease'], summary: 'serve the board to an agent over MCP (stdio): its claims live as long as its session', details: MCP_DETAILS },
  guard: { args: 'none', flags: ['by'], summary: "editor hook: deny writing a file someone else's live claim holds", details: GUARD_DETAILS },
  lock: {
    args: 'command',
    flags: ['shared', 'lock-timeout'],
    summary: "run a command holding the board's lock (--shared: only writers wait)",
    ownFlagsOnly: true,
  },
  status: { args: 'none', flags: ['tag', 'section', 'fail-on-lapsed'], summary: 'the board at a glance, once: counts, claims, lapsed, blocked, failed', details: STATUS_DETAILS },
  watch: {
    args: 'none',
    flags: ['tag', 'section', 'lock-timeout'],
    summary: 'a live full-screen view of the board (q quits)',
    details: WATCH_DETAILS,
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
      --fail-on-lapsed  status: exit 5 when a claim is past its lease
      --to URL          import: the PostgreSQL board to load into
      --replace         import: overwrite a board that already has tasks
      --from URL        export: the PostgreSQL board to print
      --write MODE      auto (default) or replace: always write a new file and
                        rename it over (or MDCLAIM_WRITE); file boards only
      --durable         fsync before returning (PostgreSQL: synchronous_commit=on)
      --lock-timeout D  give up waiting for the lock after D (default 10s;
                        PostgreSQL: each wait for a row or board lock)
      --agents          init: print the loop for an AGENTS.md, write nothing
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
    5  status --fail-on-lapsed: a claim is past its lease
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
  if (c.details !== undefined) return `mdclaim ${command} [options]${argName(c)}${c.args === 'command' ? ' [args…]' : ''}\n\n${c.summary}.\n\n${c.details}`;
  const flags = [...c.flags, 'file', ...(c.ownFlagsOnly ? [] : ['json'])].map((f) => `--${f}`).join(' ');
  const usageLine = c.args === 'command' ? `mdclaim ${command} [options] -- <command> [args…]` : `mdclaim ${command}${argName(c)} [options]`;
  return `${usageLine}\n\n${c.summary}.\n\nOptions: ${flags}\n(see mdclaim --help for what each means and for exit statuses)\n`;
}
