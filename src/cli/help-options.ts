// What each option means, in words: the one table both the global help and
// each command's help read. A command may say more of an option in its own
// spec (`options` in help-commands.ts).

export interface OptionHelp {
  /** As the help shows it: `-f, --file PATH|URL`. */
  label: string;
  text: string;
}

export const OPTIONS: Record<string, OptionHelp> = {
  file: {
    label: '-f, --file PATH|URL',
    text: 'the board: a tasks.md (default ./tasks.md), or a PostgreSQL board postgres://user@host:port/db?board=NAME (or MDCLAIM_FILE)',
  },
  by: { label: '--by ID', text: 'who you are: 1-64 of [A-Za-z0-9._:@-] (or MDCLAIM_BY)' },
  json: { label: '--json', text: 'print exactly one JSON document on stdout (errors too: {"error": …})' },
  quiet: { label: '-q, --quiet', text: 'print only the task id' },
  help: { label: '-h, --help', text: 'this help (mdclaim <command> --help: one command, with examples)' },
  version: { label: '-V, --version', text: 'print the version' },
  lease: {
    label: '--lease D',
    text: "the new claim's lease, kept on its line: it lapses D after its claim time, whoever looks (default 30m)",
  },
  tag: { label: '--tag T', text: 'only tasks tagged {T} (repeat: tasks with all of them)' },
  section: { label: '--section S', text: 'only tasks under heading S (or an ADW "Git Worktree S")' },
  status: { label: '--status S', text: 'only tasks in status S: open, blocked, claimed, done or failed' },
  commit: { label: '--commit C', text: "the commit that did it, kept in the task's marker" },
  reason: { label: '--reason R', text: "why it failed, kept on the task's line after // Failed:" },
  ttl: { label: '--ttl D', text: 'also reopen claims older than D, whatever their own lease' },
  'dry-run': { label: '--dry-run', text: 'say what would be reopened, change nothing (needs only read permission)' },
  'include-untimed': { label: '--include-untimed', text: 'also reopen claims with no timestamp ([🟡, id])' },
  write: {
    label: '--write MODE',
    text: 'auto (default): one line in place when that is crash-atomic, else a new file renamed over; replace: always the latter (or MDCLAIM_WRITE; file boards only)',
  },
  durable: { label: '--durable', text: 'fsync before returning (PostgreSQL: synchronous_commit=on)' },
  'lock-timeout': {
    label: '--lock-timeout D',
    text: "give up waiting for the board's lock after D (default 10s; PostgreSQL: each wait for a row or board lock)",
  },
  to: { label: '--to URL', text: 'the PostgreSQL board to load into' },
  from: { label: '--from URL', text: 'the same as --file (kept for older scripts)' },
  replace: { label: '--replace', text: 'overwrite a board that already has tasks' },
  shared: { label: '--shared', text: 'hold the lock shared: other readers run, writers wait' },
  loop: { label: '--loop', text: 'keep claiming; when idle, poll every --interval' },
  interval: { label: '--interval D', text: 'the poll interval, jittered by 20% (default 5s)' },
  concurrency: { label: '--concurrency K', text: 'run up to K tasks at once, their output prefixed with [id]' },
  max: { label: '--max N', text: 'stop claiming after N tasks (default: K, or none with --loop)' },
  'until-settled': { label: '--until-settled', text: 'loop until no matching task could still become claimable (a retry waiting for its time still could)' },
  retries: { label: '--retries N', text: "retry a task whose command fails up to N times: back to open, claimable by no one before a delay (written on its line), then failed as usual (default 0)" },
  'retry-delay': { label: '--retry-delay D', text: 'the first retry waits D, each next one twice as long, plus up to 20% at random (default 30s)' },
  delay: { label: '--delay D', text: 'how long the task waits before anyone may claim it again (rounded up to the second)' },
  'max-attempts': { label: '--max-attempts N', text: 'a lapsed claim whose task has had N attempts is parked (failed: "abandoned after N attempts; last held by …"), not taken over' },
  grace: { label: '--grace D', text: 'after SIGTERM/SIGINT, wait D before SIGKILL (default 10s)' },
  events: { label: '--events FILE', text: 'append one JSON event per line to FILE; one that stops taking writes is reported once (error[IO]) and the run goes on' },
  agents: { label: '--agents', text: 'write nothing; print the lines an AGENTS.md or CLAUDE.md needs to teach an agent the loop (next, heartbeat, done/fail, exit statuses, the MCP route)' },
  'fail-on-lapsed': { label: '--fail-on-lapsed', text: 'exit 5 when a claim (among those shown) is past its lease, so a cron job can alert' },
  'fail-on-signal': { label: '--fail-on-signal', text: 'on SIGTERM/SIGINT mark running tasks failed, not open' },
  worktree: { label: '--worktree', text: "run each task in its section's git worktree" },
  trees: { label: '--trees DIR', text: 'where the worktrees are (default trees at the top of the repository)' },
  base: { label: '--base REF', text: "what a new worktree's branch starts from (default HEAD)" },
  setup: { label: '--setup CMD', text: 'a shell command run once in a new worktree' },
  'no-commit': { label: '--no-commit', text: 'do not record the commit (git rev-parse --short HEAD)' },
  writes: {
    label: '--writes P',
    text: "a path you write (repeat, or a,b); a directory ends in /; relative to the board's directory",
  },
  reads: { label: '--reads P', text: 'a path you only read (readers share)' },
};
