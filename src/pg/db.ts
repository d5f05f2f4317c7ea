import { createRequire } from 'node:module';
import type { Client, Pool, PoolClient } from 'pg';
import { MdclaimError } from '../errors.js';
import { capped } from '../storage/deadline.js';
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
// What the server or the network says when there is no session to be had.
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ENOENT', 'EACCES']);
const CONNECT_SQLSTATES = new Set(['28P01', '28000', '3D000', '53300', '57P03', '08001', '08006']);

/**
 * A lazily made pool: `pg` is imported on the first operation, so a file
 * board (and the CLI on one) never loads it.
 */
export class Db {
  private pool: Promise<Pool> | null = null;

  constructor(readonly target: PgTarget, private readonly opts: DbOptions) {}

  /** Run `work` on one connection; `transaction` wraps it in BEGIN/COMMIT (ROLLBACK on a throw). */
  async with<T>(work: (c: Conn) => Promise<T>, transaction = false): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      let broken = false;
      try {
        const conn: Conn = { query: async (sql, params) => (await client.query(sql, params as unknown[])).rows };
        if (!transaction) return await work(conn);
        await client.query('BEGIN');
        try {
          const out = await work(conn);
          await client.query('COMMIT');
          return out;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true));
          throw err;
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== undefined && RETRY.has(code) && attempt < 5) continue;
        if (err instanceof MdclaimError || err instanceof RolledBack) throw err;
        broken = true;
        throw this.error(err, false);
      } finally {
        client.release(broken);
      }
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
      return pool;
    });
    try {
      return await (await this.pool).connect();
    } catch (err) {
      throw this.error(err, true);
    }
  }

  /**
   * What every connection of this board is opened with: the lock timeout as
   * a startup parameter (PostgreSQL's 0 would mean never, so at least 1 ms),
   * and for a durable board `-c synchronous_commit=on` after the URL's own
   * `options`, where the later setting wins.
   */
  private config(): import('pg').ClientConfig {
    let connectionString = this.target.connectionString;
    if (this.opts.durable) {
      const url = new URL(connectionString);
      url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c synchronous_commit=on`.trim());
      connectionString = url.toString();
    }
    // Both are 32-bit counts of ms (the server's setting, the client's timer): a longer duration is capped, not wrapped.
    return { connectionString, connectionTimeoutMillis: capped(this.opts.connectTimeoutMs), lock_timeout: capped(Math.max(1, this.opts.lockTimeoutMs)) };
  }

  /** One line, naming the server as postgres://user@host:port/db and never the password. */
  private error(err: unknown, connecting: boolean): MdclaimError {
    const e = err as { code?: string; message?: string };
    const why = (e.message ?? String(err)).replace(/\s*\n\s*/g, ' ');
    if (e.code === LOCK_TIMEOUT) {
      return new MdclaimError('LOCK_TIMEOUT', `${this.target.display}?board=${this.target.board}: lock still held by another session after ${this.opts.lockTimeoutMs} ms`, { cause: err });
    }
    if (connecting || (e.code !== undefined && (CONNECT_CODES.has(e.code) || CONNECT_SQLSTATES.has(e.code))) || /Connection terminated|timeout expired/i.test(why)) {
      return new MdclaimError('IO', `cannot connect to ${this.target.display} (${connectReason(e)})`, { cause: err });
    }
    return new MdclaimError('IO', `${this.target.display}: ${why}`, { cause: err });
  }
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

/** Thrown by a transaction's work to roll it back and tell its caller why, untouched (the caller decides what it means). */
export class RolledBack extends Error {}
