import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../builtins.js';
import type { Socket } from 'node:net';

/**
 * The watchdog: a `sh` reading the runner's lines, `+PGID` when a command's
 * group starts and `-PGID` when the runner has seen it end. Its stdin is a
 * pipe whose other end only the runner holds, so the kernel closes it however
 * the runner dies, SIGKILL included, and `read` returns at EOF. It then does
 * what the runner would have done: SIGTERM to each group still listed, SIGKILL
 * after the grace (`$1`, in ms) to those still there. `kill -0` while waiting
 * also keeps it from signalling a group id that has been freed and reused.
 */
const SCRIPT = `
grace=$1 groups=' '
while IFS= read -r line; do
  case $line in
  +*) groups="$groups\${line#+} " ;;
  -*) pg=\${line#-}
      case $groups in *" $pg "*) groups="\${groups%% $pg *} \${groups#* $pg }" ;; esac ;;
  esac
done
set -- $groups
[ $# -eq 0 ] && exit 0
for pg; do kill -TERM -"$pg" 2>/dev/null; done
ticks=$(( (grace + 99) / 100 ))
while [ "$ticks" -gt 0 ]; do
  alive=
  for pg; do kill -0 -"$pg" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && exit 0
  sleep 0.1
  ticks=$((ticks - 1))
done
for pg; do kill -KILL -"$pg" 2>/dev/null; done
`;

/** How many watchdogs in a row may die within their first second and still be replaced. */
const QUICK_RESTARTS = 5;

/**
 * One per runner: it stops the commands' groups when the runner dies, since
 * no signal reaches a SIGKILLed process and Node cannot ask for
 * PR_SET_PDEATHSIG. It runs in a session of its own (a terminal's hangup or ^C
 * reaches the runner, not it) and in no command's group (it neither keeps a
 * group alive nor gets the signals sent to one), and the runner reaps it.
 */
export class Watchdog {
  private child: ChildProcess | undefined;
  /** Settles once the current watchdog has been handed every group armed when it started. */
  private ready: Promise<void> = Promise.resolve();
  private readonly armed = new Set<number>();
  private closed = false;
  /** Watchdogs that died within their first second, in a row: a bounded number is replaced. */
  private quickDeaths = 0;

  constructor(private readonly graceMs: number) {}

  /** Resolves once the watchdog holds the group: from then on the runner's death stops it. */
  arm(pgid: number): Promise<void> {
    this.closed = false;
    this.armed.add(pgid);
    return this.child ? this.write(this.child, `+${pgid}\n`, true) : this.start();
  }

  /** The runner has seen the group end: forget it (its id may be reused). */
  disarm(pgid: number): void {
    if (this.armed.delete(pgid) && this.child) this.write(this.child, `-${pgid}\n`, false).catch(() => {});
  }

  /**
   * The runner is done: the watchdog exits (it would stop any group still
   * armed). Resolves once it has, when nothing was armed, so the runner reaps
   * it: an orphan would wait for an init that may never reap it.
   */
  close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child) return Promise.resolve();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin!.end();
    if (this.armed.size > 0) return Promise.resolve();
    child.ref();
    return exited;
  }

  /** Start a watchdog and hand it every group armed so far. */
  private start(): Promise<void> {
    const child = childProcess().spawn('/bin/sh', ['-c', SCRIPT, 'mdclaim-watchdog', String(this.graceMs)], {
      cwd: '/',
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    if (child.pid === undefined) {
      return new Promise((_, reject) => child.once('error', (err) => reject(new Error(`cannot start the watchdog: ${err.message}`))));
    }
    const startedAt = Date.now();
    this.child = child;
    // Neither it nor its pipe keeps the runner's event loop alive.
    child.unref();
    (child.stdin as Socket).unref();
    child.on('error', () => {});
    child.stdin!.on('error', () => {}); // a write to a dead watchdog fails in its callback
    child.on('exit', () => {
      if (this.child !== child) return;
      this.child = undefined;
      // Killed by someone while commands run: another takes over their groups, however soon (a few times in a row, not in a loop, if one cannot run at all).
      this.quickDeaths = Date.now() - startedAt < 1000 ? this.quickDeaths + 1 : 0;
      if (!this.closed && this.armed.size > 0 && this.quickDeaths <= QUICK_RESTARTS) this.start().catch(() => {});
    });
    this.ready = this.write(child, [...this.armed].map((g) => `+${g}\n`).join(''), false);
    return this.ready;
  }

  /** Resolves once the lines are in the pipe: the watchdog reads them even if the runner dies next. */
  private write(child: ChildProcess, lines: string, retry: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      child.stdin!.write(lines, (err) => {
        if (!err) return resolve();
        if (this.child === child) this.child = undefined;
        if (!retry || this.closed) return reject(new Error(`the watchdog is gone: ${err.message}`));
        // It died before its exit was seen: whichever watchdog runs now is handed every armed group.
        (this.child ? this.ready : this.start()).then(resolve, reject);
      });
    });
  }
}
