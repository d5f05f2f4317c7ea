// Every option of the CLI, declared once: the parser (args.ts) reads whether it
// takes a value and its short form; the help (help-options.ts) reads the same
// entry for its label and its meaning. Which command takes which option is the
// command's own table (help-commands.ts, `flags`).

export interface Flag {
  /** Short alias, without the dash. */
  short?: string;
  /** What its value is called in the help (`PATH|URL`, `D`); a flag without one is a switch (`--json`). */
  value?: string;
  /** What it means, for the help. */
  text: string;
  /** Commands where it is a switch instead (`run --commit`; `done --commit SHA`). */
  switchIn?: readonly string[];
}

export const FLAGS: Record<string, Flag> = {
  file: { short: 'f', value: 'PATH|URL', text: 'the board: a tasks.md (default ./tasks.md), or a PostgreSQL board postgres://user@host:port/db?board=NAME (or MDCLAIM_FILE)' },
  by: { value: 'ID', text: 'who you are: 1-64 of [A-Za-z0-9._:@-] (or MDCLAIM_BY)' },
  json: { text: 'print exactly one JSON document on stdout (errors too: {"error": …})' },
  quiet: { short: 'q', text: 'print only the task id' },
  help: { short: 'h', text: 'this help (mdclaim <command> --help: one command, with examples)' },
  version: { short: 'V', text: 'print the version' },
  lease: { value: 'D', text: "the new claim's lease, kept on its line: it lapses D after its claim time, whoever looks (default 30m, at least 1s)" },
  tag: { value: 'T', text: 'only tasks tagged {T} (repeat: tasks with all of them)' },
  section: { value: 'S', text: 'only tasks under heading S (or a worktree heading naming S: "Git Worktree S", "Worktree: S")' },
  status: { value: 'S', text: 'only tasks in status S: open, blocked, claimed, done or failed' },
  commit: { value: 'C', switchIn: ['run'], text: "the commit that did it, kept in the task's marker" },
  reason: { value: 'R', text: "why it failed, kept on the task's line after // Failed:" },
  ttl: { value: 'D', text: 'also reopen claims older than D, whatever their own lease' },
  'dry-run': { text: 'say what would be reopened, change nothing (needs only read permission)' },
  'include-untimed': { text: 'also reopen claims with no timestamp ([🟡, id])' },
  write: { value: 'MODE', text: 'auto (default): one line in place when that is crash-atomic, else a new file renamed over; replace: always the latter (or MDCLAIM_WRITE; file boards only)' },
  durable: { text: 'fsync before returning (PostgreSQL: synchronous_commit=on)' },
  'lock-timeout': { value: 'D', text: "give up waiting for the board's lock after D (default 10s; PostgreSQL: each wait for a row or board lock)" },
  to: { value: 'URL', text: 'the PostgreSQL board to load into' },
  replace: { text: 'overwrite a board that already has tasks' },
  shared: { text: 'hold the lock shared: other readers run, writers wait' },
  loop: { text: 'keep claiming; when idle, poll every --interval' },
  interval: { value: 'D', text: 'the poll interval, jittered by 20% (default 5s)' },
  concurrency: { value: 'K', text: 'run up to K tasks at once, their output prefixed with [id]' },
  max: { value: 'N', text: 'stop claiming after N tasks (default: K, or none with --loop)' },
  'until-settled': { text: 'loop until no matching task could still become claimable (a retry waiting for its time still could)' },
  retries: { value: 'N', text: 'retry a task whose command fails up to N times: back to open, claimable by no one before a delay (written on its line), then failed as usual (default 0)' },
  'retry-delay': { value: 'D', text: 'the first retry waits D, each next one twice as long, plus up to 20% at random (default 30s)' },
  'max-attempts': { value: 'N', text: 'a lapsed claim whose task has had N attempts is parked (failed: "abandoned after N attempts; last held by …"), not taken over' },
  delay: { value: 'D', text: 'how long the task waits before anyone may claim it again (rounded up to the second)' },
  grace: { value: 'D', text: 'after SIGTERM/SIGINT, wait D before SIGKILL (default 10s)' },
  events: { value: 'FILE', text: 'append one JSON event per line to FILE; one that stops taking writes is reported once (error[IO]) and the run goes on' },
  'fail-on-signal': { text: 'on SIGTERM/SIGINT mark running tasks failed, not open' },
  'no-commit': { text: 'do not record the commit (git rev-parse --short HEAD)' },
  worktree: { text: "run each task in its section's git worktree" },
  trees: { value: 'DIR', text: 'where the worktrees are (default trees at the top of the repository)' },
  base: { value: 'REF', text: "what a new worktree's branch starts from (default HEAD)" },
  setup: { value: 'CMD', text: 'a shell command run once in a new worktree' },
  force: { text: 'remove the worktree even though commits of its branch are on no other ref (they go with it)' },
  writes: { value: 'P', text: "a path you write (repeat, or a,b); a directory ends in /; relative to the board's directory" },
  reads: { value: 'P', text: 'a path you only read (repeat, or a,b; readers share)' },
  after: { value: 'ID', text: 'a task the new one waits for, by id or the start of one (repeat, or a,b), or "section NAME": written as {after: …}' },
  agents: { text: 'write nothing; print the lines an AGENTS.md or CLAUDE.md needs to teach an agent the loop (next, heartbeat, done/fail, exit statuses, the MCP route)' },
  'no-history': { text: 'make no journal beside the board: it keeps no history (docs/FORMAT.md)' },
  since: { value: 'D', text: 'only events of the last D (e.g. 1h, 2d)' },
  'fail-on-lapsed': { text: 'exit 5 when a claim (among those shown) is past its lease, so a cron job can alert' },
};

/** The option as the help shows it: `-f, --file PATH|URL`. */
export function flagLabel(name: string, f: Flag): string {
  return `${f.short === undefined ? '' : `-${f.short}, `}--${name}${f.value === undefined ? '' : ` ${f.value}`}`;
}
