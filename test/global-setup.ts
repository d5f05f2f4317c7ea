import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

// Set up once for the whole run: a PostgreSQL database of the suite's own
// (unless MDCLAIM_PG_URL names one), and the check that the run left no
// process behind.

/** The server the suite makes its database on, when MDCLAIM_PG_URL names none. */
const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL URL the tests use (no board), or '' when the server could not be reached. */
    pgUrl: string;
    /** Why the server could not be reached ('' when it could). */
    pgWhy: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  adoptOrphans();
  let drop: (() => Promise<void>) | undefined;
  const given = process.env['MDCLAIM_PG_URL'];
  if (given !== undefined) {
    project.provide('pgUrl', given);
    project.provide('pgWhy', '');
  } else {
    const name = `mdclaim_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    try {
      await admin(`CREATE DATABASE ${name}`);
      const u = new URL(SERVER);
      u.pathname = `/${name}`;
      project.provide('pgUrl', u.toString());
      project.provide('pgWhy', '');
      drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } catch (err) {
      project.provide('pgUrl', '');
      project.provide('pgWhy', (err as Error).message || String(err));
    }
  }
  return async () => {
    try {
      await drop?.();
    } finally {
      leftBehind();
    }
  };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query(statement);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Make this process the one every orphan of the run is reparented to (Linux's
 * child subreaper), so whatever a test starts stays among its descendants: a
 * process that calls setsid, whose parent died, or that was given an
 * environment of its own (a mark in the environment is lost there). Like
 * init, it reaps the orphans that end, on SIGCHLD: a zombie still answers
 * kill -0, and a runner's watchdog would wait out its grace on one. Its own
 * children (the workers) are left to Node, which reaps them itself.
 */
function adoptOrphans(): void {
  const libc = (createRequire(import.meta.url)('koffi') as typeof import('koffi')).load(null);
  const prctl = libc.func('int prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5)');
  const waitpid = libc.func('int waitpid(int pid, void *status, int options)');
  const PR_SET_CHILD_SUBREAPER = 36;
  const WNOHANG = 1;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0) throw new Error('cannot become the child subreaper of the test run: the check for processes left behind would miss some');
  const own = new Set(childrenOf(process.pid).map((c) => c.pid));
  const spawnChild = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function (this: ChildProcess, ...args: Parameters<typeof spawnChild>) {
    const r = spawnChild.apply(this, args);
    if (this.pid !== undefined) own.add(this.pid);
    return r;
  };
  process.on('SIGCHLD', () => {
    for (const c of childrenOf(process.pid)) if (c.zombie && !own.has(c.pid)) waitpid(c.pid, null, WNOHANG);
  });
}

/** The processes whose parent is `ppid`, and whether each has ended (a zombie). */
function childrenOf(ppid: number): { pid: number; zombie: boolean }[] {
  const out: { pid: number; zombie: boolean }[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) === ppid) out.push({ pid: Number(pid), zombie: state === 'Z' });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A running process (zombies have ended) read from /proc/PID/stat: its parent and its command line. */
function processOf(pid: string): { ppid: number; cmd: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return undefined;
    return { ppid: Number(ppid), cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() };
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Fail the run when a process it started is still running: a descendant of
 * this process, orphans included (see adoptOrphans). Kill each, then say which.
 */
function leftBehind(): void {
  const procs = new Map<number, { ppid: number; cmd: string }>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const p = processOf(pid);
    if (p !== undefined) procs.set(Number(pid), p);
  }
  const descends = (pid: number): boolean => {
    for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  const found: string[] = [];
  for (const [pid, { cmd }] of procs) {
    if (!descends(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      continue; // exited meanwhile
    }
    found.push(`${pid} ${cmd}`);
  }
  if (found.length === 0) return;
  // A teardown's throw is printed but leaves the exit status alone: fail the run ourselves.
  process.exitCode = 1;
  throw new Error(`the tests left ${found.length} process(es) running (killed now):\n  ${found.join('\n  ')}`);
}
