import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { CLI } from './cli.js';

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

afterEach(() => {
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

/** Poll until `cond` gives something truthy; the test's own timeout bounds the wait. */
export async function until<T>(what: string, cond: () => T | Promise<T>, everyMs = 25): Promise<NonNullable<T>> {
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The pid a command wrote to `file` (its `$$`: the group leader), once it has; the group is killed after the test. */
export async function pidIn(file: string): Promise<number> {
  const pid = await until(`${file} to hold a pid`, () => existsSync(file) && /^\d+\n$/.test(readFileSync(file, 'utf8')) && Number(readFileSync(file, 'utf8')));
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
