import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

// Set up once for the whole run: a PostgreSQL database of the suite's own
// (unless MDCLAIM_PG_URL names one), and a mark on every fixture process so
// the run can prove it left none behind.

/** The server the suite makes its database on, when MDCLAIM_PG_URL names none. */
const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL URL the tests use (no board), or '' when the server could not be reached. */
    pgUrl: string;
    /** Why the server could not be reached ('' when it could). */
    pgWhy: string;
    /** This run's token, the value of FIXTURE_MARK in every process the tests start. */
    fixtureMark: string;
  }
}

/** The marker env var the processes tests start carry (set in each worker by setup.ts): its value is this run's token. */
export const FIXTURE_MARK = 'VITEST_MDCLAIM_RUN';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const token = `${process.pid}_${randomBytes(4).toString('hex')}`;
  project.provide('fixtureMark', token);
  let drop: (() => Promise<void>) | undefined;
  const given = process.env['MDCLAIM_PG_URL'];
  if (given !== undefined) {
    project.provide('pgUrl', given);
    project.provide('pgWhy', '');
  } else {
    const name = `mdclaim_test_${token}`;
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
      leftBehind(token);
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

/** Fail the run when a fixture of it is still running: kill each, then say which. */
function leftBehind(token: string): void {
  const mark = `${FIXTURE_MARK}=${token}`;
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!environ.split('\0').includes(mark)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // gone meanwhile
    }
    try {
      process.kill(Number(pid), 'SIGKILL');
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
