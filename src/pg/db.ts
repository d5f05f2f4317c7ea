import { createRequire } from 'node:module';
import type { Client, Pool, PoolClient } from 'pg';
import { MdclaimError } from '../errors.js';
import { capped, sleep } from '../storage/deadline.js';
import type { PgTarget } from './url.js';

export interface DbOptions {
  /** Most connections this board keeps open (the CLI uses 1). */
  max: number;
  connectTimeoutMs: number;
  /** Each wait for a row or advisory lock gives up after this long (LOCK_TIMEOUT). */
  lockTimeoutMs: number;
  /** Every commit waits for its WAL flush (`synchronous_commit=on`), whatever the URL or the server says. */
  durable: boolean;
}

// Row and Listener spell out what mdclaim uses of pg's types, so the published
// declarations need no @types/pg (a devDependency) in the user's project.
/** A row as the driver returns it (pg's QueryResultRow). */
export interface Row { [column: string]: any }

/** A connection of its own that LISTENs: what the board uses of pg's Client. */
export interface Listener {
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}

/** What a statement runs on: a pooled connection, inside or outside a transaction. */
export interface Conn {
  query<R extends Row = Row>(sql: string, params?: unknown[]): Promise<R[]>;
}

// lock_not_available: a wait for a lock outlasted lock_timeout.
const LOCK_TIMEOUT = '55P03';
// Codes a whole operation may simply run again for: nothing of it was committed.
const RETRY = new Set(['40001', '40P01']);
// A whole operation runs at most this many times for a serialization failure or a deadlock.
const ATTEMPTS = 5;
// The session ended under an operation: an administrator, a shutdown, a crash, the network.
const LOST = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', 'ECONNRESET', 'EPIPE']);
// What the server or the network says when there is no session to be had.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ENOENT', 'EACCES']);
const CONNECT_SQLSTATES = new Set(['28P01', '28000', '3D000', '53300', '57P03', '08001', '08006']);

// Every statement with parameters is a named prepared statement, parsed and planned once per
// connection: mdclaim's statements are a fixed set of texts, so the names are too. The plan is the
// generic one from the first use on (planning a claim cost more than running it), and JIT is off
// (past its cost threshold, a big board's claim compiled itself on every call).
const SESSION = '-c plan_cache_mode=force_generic_plan -c jit=off';
const names = new Map<string, string>();

function statement(text: string, values: unknown[] | undefined): import('pg').QueryConfig {
  if (values === undefined) return { text };
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `mdclaim_${names.size + 1}`));
  return { name, text, values };
}

/**
 * A lazily made pool: `pg` is imported on the first operation, so a file
 * board (and the CLI on one) never loads it.
 */
export class Db {
  private pool: Promise<Pool> | null = null;

  constructor(readonly target: PgTarget, private readonly opts: DbOptions) {}

  /**
   * Run `work` on one connection; `transaction` wraps it in BEGIN/COMMIT
   * (ROLLBACK on a throw). Work outside a transaction must only read. A
   * connection lost before COMMIT (pg_terminate_backend, a restart) committed
   * nothing, so the work runs again on a new one; lost during COMMIT, the
   * server says whether the transaction committed (txid_status). `transaction`
   * may instead be an Alone: one writing statement in autocommit, asked about
   * through its `made` when the connection is lost under it.
   */
  async with<T>(work: (c: Conn) => Promise<T>, transaction: boolean | Alone<T> = false): Promise<T> {
    const alone = typeof transaction === 'object' ? transaction : undefined;
    if (alone) transaction = false;
    // The server process of a session lost under a write run alone: what it did is known once it runs no statement.
    let lostPid: number | undefined;
    // When a connection was first lost under this operation: it is tried again until the connect timeout from then.
    let lostAt: number | undefined;
    const again = () => Date.now() - lostAt! < this.opts.connectTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient;
      try {
        client = await this.connect();
      } catch (err) {
        // A session ended while it started, or a server restarting or failing over refuses new ones for a while.
        if (isLost((err as Error).cause)) lostAt ??= Date.now();
        if (lostAt !== undefined && again()) {
          await sleep(100);
          continue;
        }
        throw err;
      }
      let broken = false;
      let xid: string | undefined;
      let done: { out: T } | undefined;
      let lost: unknown;
      try {
        const conn: Conn = { query: async (sql, params) => (await client.query(statement(sql, params))).rows };
        if (alone && lostPid !== undefined) {
          await this.settle(conn, lostPid);
          lostPid = undefined;
          const made = await alone.made(conn);
          if (made !== undefined) return made;
        }
        if (!transaction) return await work(conn);
        await client.query('BEGIN');
        let out: T;
        try {
          out = await work(conn);
          // What to ask about if the COMMIT loses its connection; null for work that wrote nothing.
          xid = (await client.query<{ xid: string | null }>('SELECT txid_current_if_assigned()::text AS xid')).rows[0]!.xid ?? undefined;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true));
          throw err;
        }
        done = { out };
        await client.query('COMMIT');
        return done.out;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== undefined && RETRY.has(code) && attempt < ATTEMPTS) continue;
        if (err instanceof MdclaimError || err instanceof RolledBack) throw err;
        broken = true;
        if (!isLost(err)) throw this.error(err, false);
        if (alone) lostPid ??= (client as unknown as { processID: number | null }).processID ?? undefined;
        lostAt ??= Date.now();
        if (!again()) throw this.error(err, false);
        lost = err;
      } finally {
        client.release(broken);
      }
      // Lost during COMMIT: a transaction that wrote nothing stands; else the server is asked, on
      // another connection (the pool may hold only one, now given back).
      if (done !== undefined && (xid === undefined || (await this.outcome(xid, lost)) === 'committed')) return done.out;
    }
  }

  /** Wait until server process `pid` runs no statement (or is gone): a write it ran alone is then committed or undone. */
  private async settle(c: Conn, pid: number): Promise<void> {
    const deadline = Date.now() + this.opts.lockTimeoutMs + Math.max(this.opts.connectTimeoutMs, 1000);
    while ((await c.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [pid])).length > 0) {
      if (Date.now() > deadline) throw new MdclaimError('IO', `lost the connection to ${this.target.display} during a write, and its session is still running it`);
      await sleep(20);
    }
  }

  /** Whether the transaction whose COMMIT lost its connection committed: asked on another connection until the server knows. */
  private async outcome(xid: string, lost: unknown): Promise<'committed' | 'aborted'> {
    const deadline = Date.now() + Math.max(this.opts.connectTimeoutMs, 1000);
    for (;;) {
      let status: string | null | undefined;
      const client = await this.connect();
      let broken = false;
      try {
        status = (await client.query<{ s: string | null }>('SELECT txid_status($1::bigint) AS s', [xid])).rows[0]?.s;
      } catch (err) {
        broken = true;
        if (!isLost(err)) throw this.error(err, false);
      } finally {
        client.release(broken);
      }
      if (status === 'committed' || status === 'aborted') return status;
      // 'in progress' until the ended session is gone; null if the server no longer knows.
      if (status === null || Date.now() > deadline) throw this.error(lost, false, 'the connection was lost while committing, and whether the change was made is unknown');
      await sleep(20);
    }
  }

  /** A connection of its own, outside the pool (LISTEN needs one that stays put). */
  async dedicated(): Promise<Listener> {
    const pg = await loadPg();
    const client: Client = new pg.Client(this.config());
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (err) {
      throw this.error(err, true);
    }
    return client;
  }

  async end(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool).end();
  }

  private async connect(): Promise<PoolClient> {
    this.pool ??= loadPg().then((pg) => {
      const pool = new pg.Pool({
        ...this.config(),
        max: this.opts.max,
        // A script that forgets close() still exits once its work is done.
        allowExitOnIdle: true,
      });
      // An idle connection the server dropped is discarded; the next operation opens another.
      pool.on('error', () => {});
      // A connection in use that the server drops says so through the query it runs; without
      // a listener of its own, its 'error' event between two queries would end the process.
      pool.on('connect', (client) => client.on('error', () => {}));
      return pool;
    });
    try {
      return await (await this.pool).connect();
    } catch (err) {
      throw this.error(err, true);
    }
  }

  /**
   * What every connection of this board is opened with: SESSION, then the
   * URL's own `options` (a later setting wins, so the URL may undo SESSION's),
   * and last, for a durable board, `-c synchronous_commit=on`; and the lock
   * timeout as a startup parameter (PostgreSQL's 0 would mean never, so at
   * least 1 ms).
   */
  private config(): import('pg').ClientConfig {
    const url = new URL(this.target.connectionString);
    const options = [SESSION, url.searchParams.get('options') ?? '', this.opts.durable ? '-c synchronous_commit=on' : ''];
    url.searchParams.set('options', options.filter(Boolean).join(' '));
    const connectionString = url.toString();
    // Both are 32-bit counts of ms (the server's setting, the client's timer): a longer duration is capped, not wrapped.
    return { connectionString, connectionTimeoutMillis: capped(this.opts.connectTimeoutMs), lock_timeout: capped(Math.max(1, this.opts.lockTimeoutMs)) };
  }

  /** One line, naming the server as postgres://user@host:port/db and never the password. */
  private error(err: unknown, connecting: boolean, more?: string): MdclaimError {
    const e = err as { code?: string; message?: string };
    const why = (e.message ?? String(err)).replace(/\s*\n\s*/g, ' ');
    if (!connecting && isLost(err)) {
      return new MdclaimError('IO', `lost the connection to ${this.target.display} (${why})${more === undefined ? '' : `: ${more}`}`, { cause: err });
    }
    if (e.code === LOCK_TIMEOUT) {
      return new MdclaimError('LOCK_TIMEOUT', `${this.target.display}?board=${this.target.board}: lock still held by another session after ${this.opts.lockTimeoutMs} ms`, { cause: err });
    }
    if (connecting || (e.code !== undefined && (CONNECT_CODES.has(e.code) || CONNECT_SQLSTATES.has(e.code))) || /Connection terminated|timeout expired/i.test(why)) {
      return new MdclaimError('IO', `cannot connect to ${this.target.display} (${connectReason(e)})`, { cause: err });
    }
    return new MdclaimError('IO', `${this.target.display}: ${why}`, { cause: err });
  }
}

/** Did the session end under the operation (the server or the network ended it)? Then nothing uncommitted of it remains. */
function isLost(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (e?.code !== undefined && LOST.has(e.code)) return true;
  return /Connection terminated|not queryable|terminating connection|Client was closed/i.test(e?.message ?? '');
}

function connectReason(e: { code?: string; message?: string }): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case '28P01':
    case '28000':
      return 'authentication failed';
    case '3D000':
      return 'no such database';
    default:
      return /timeout/i.test(e.message ?? '') ? 'timed out' : (e.message ?? 'failed').replace(/password[^,;]*/gi, 'password …');
  }
}

// require, not import(): the CLI is a CommonJS bundle run from V8's code cache, where import() has no loader.
const require = createRequire(import.meta.url);
let pgModule: typeof import('pg') | null = null;

async function loadPg(): Promise<typeof import('pg')> {
  pgModule ??= require('pg') as typeof import('pg');
  return pgModule;
}

/**
 * A write that is one statement, run alone in autocommit (one round trip, no transaction around it).
 * `made` says what it made, if it took effect: asked when a connection was lost under it, once the
 * lost session runs no statement, before it runs again.
 */
export interface Alone<T> {
  made(c: Conn): Promise<T | undefined>;
}

/** Thrown by a transaction's work to roll it back and tell its caller why, untouched (the caller decides what it means). */
export class RolledBack extends Error {}
