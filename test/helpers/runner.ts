import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanAfterEach } from './cleanup.js';
import { openBoard } from '../../src/index.js';
import { CLI, mdclaim } from './cli.js';
import { stopOutsideLock } from './locks.js';
import { boardFile } from './tmp.js';

// What the runner's tests start: `mdclaim run` as a real process, and
// commands, each a real `sh -c` in its own process group, that tell the test
// where they are through files in the board's directory ($DIR). Waits are for
// conditions (a pid file, a line on the board), never for a length of time.

/** A command's first step: its shell (the group leader) writes its pid to $DIR/$RUNNER.pid. */
export const PID = 'echo $$ > "$DIR/$RUNNER.pid"';
/** A command's step that waits until the test calls go(). */
export const WAIT_GO = 'while [ ! -e "$DIR/go" ]; do sleep 0.05; done';
/** A straggler left in the command's group: it ignores SIGTERM and does not hold the runner's output. */
export const STRAGGLER = `sh -c "trap '' TERM; exec sleep 47" >/dev/null 2>&1 &`;
/** A daemon that leaves the command's group (setsid) and writes its pid, its own group's id, to $DIR/daemon.pid. */
export const DAEMON = 'setsid sleep 60 & echo $! > "$DIR/daemon.pid"';

/** A board for a runner's test: `env(name)` is a command's environment as runner `name`, `pid(name)` waits for that command's pid. */
export function runnerBoard(board: string) {
  const file = boardFile(board);
  const dir = dirname(file);
  return {
    file,
    dir,
    env: (name = 'A') => ({ DIR: dir, RUNNER: name }),
    pid: (name = 'A') => pidIn(join(dir, `${name}.pid`)),
    go: () => writeFileSync(join(dir, 'go'), ''),
  };
}

/** The board's tasks, read under its shared lock: a runner may be writing. */
export const tasks = (file: string) => openBoard(file).list();

/**
 * Freeze the runner (SIGSTOP) until its claim on the board's first task has
 * lapsed and `thief` has taken the task over (refused until then), then let it
 * go on: the task's id, and the board as the thief left it.
 */
export async function takenOverWhileFrozen(r: Runner, file: string): Promise<{ id: string; taken: Buffer }> {
  await stopOutsideLock(r.child.pid!, file);
  const id = (await tasks(file))[0]!.id;
  await until('the takeover', () => mdclaim(['claim', id, '--file', file, '--by', 'thief', '--lease', '1h']).status === 0, 100);
  const taken = readFileSync(file);
  r.child.kill('SIGCONT');
  return { id, taken };
}

export interface Runner {
  child: ChildProcess;
  /** Everything written so far. */
  out: () => string;
  err: () => string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** The runner process ended (its commands, which share its stdout, may live on). */
  exited: Promise<void>;
}

const started: ChildProcess[] = [];
const groups: number[] = [];

cleanAfterEach(() => {
  // Nothing a test started outlives it, whatever it asserted.
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const g of groups.splice(0)) signalGroup(g, 'SIGKILL');
});

/** `mdclaim run --file FILE ARGS…` as a real process, with a clean MDCLAIM_* environment and stdin left open. */
export function runner(file: string, args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Runner {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MDCLAIM_')) env[k] = v;
  const child = spawn(process.execPath, [CLI, 'run', '--file', file, ...args], {
    env: { ...env, ...opts.env },
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Awaited<Runner['done']>>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, out: () => stdout, err: () => stderr, done, exited };
}

/** Poll until `cond` gives something truthy, for up to `ms` (generous: on a loaded machine a process takes seconds to start), then fail naming `what`. */
export async function until<T>(what: string, cond: () => T | Promise<T>, everyMs = 25, ms = 120_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The pid a command wrote to `file` (its `$$`: the group leader), once it has; the group is killed after the test. */
export async function pidIn(file: string): Promise<number> {
  const pid = await until(`${file} to hold a pid`, () => (existsSync(file) && /^\d+\n$/.test(readFileSync(file, 'utf8')) ? Number(readFileSync(file, 'utf8')) : 0));
  groups.push(pid);
  return pid;
}

export function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is any process of this group still running? Asked of ps(1); zombies (nobody reaps orphans here) do not count. */
export function groupAlive(pgid: number): boolean {
  return groupMembers(pgid) > 0;
}

/** How many processes of this group are running (zombies not counted). */
export function groupMembers(pgid: number): number {
  const ps = spawnSync('ps', ['-e', '-o', 'pgid=,stat='], { encoding: 'utf8' });
  return ps.stdout.split('\n').filter((l) => {
    const [g, stat] = l.trim().split(/\s+/);
    return Number(g) === pgid && stat !== undefined && !stat.startsWith('Z');
  }).length;
}

/** The JSON events a runner appended to its --events file. */
export function eventsIn(file: string): { event: string; [k: string]: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
