import pg from 'pg';
import { PG_URL } from './pg.js';
import type { ServerFigures } from './pg-server.js';

// The server's own counts that bench/pg-hot.ts reads: WAL records by relation (pg_walinspect), the
// table's update and HOT update counters, each from a database of its own.

export async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

export async function freshDatabase(tag: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mdclaim_hot_${process.pid}_${tag}`;
  const admin = new URL(PG_URL);
  admin.pathname = '/postgres';
  admin.search = '';
  const once = async (q: string) => {
    const c = await client(admin.toString());
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await once(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await once(`CREATE DATABASE ${name}`);
  await once(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => once(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * The WAL records written for this database's relations between two positions (pg_walinspect): per
 * relation and record type, e.g. `task Heap:UPDATE` or `task_hash Btree:INSERT_LEAF`, each a count.
 * An index entry is one insert record, whatever the index later reclaims.
 */
export async function walRecords(c: pg.Client, from: string, to: string): Promise<Map<string, number>> {
  const rows = (await c.query<{ what: string; n: string }>(
    `WITH r AS (SELECT resource_manager || ':' || record_type AS kind, regexp_match(block_ref, 'rel [0-9]+/([0-9]+)/([0-9]+)') AS m
       FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn))
     SELECT coalesce(k.relname, r.m[2]) || ' ' || r.kind AS what, count(*) AS n
     FROM r LEFT JOIN pg_class k ON k.relfilenode = r.m[2]::oid
     WHERE r.m[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database()) GROUP BY 1 ORDER BY 1`,
    [from, to],
  )).rows;
  return new Map(rows.map((r) => [r.what, Number(r.n)]));
}

/**
 * Where each relation's WAL records between two positions went, by block (pg_walinspect): the records
 * naming it, the distinct blocks they touched, and the share that went to the block its previous record
 * went to. A share near 1 is one page every writer goes through in turn (a heap's last page, an
 * index's rightmost leaf); near 0, writes spread over the relation.
 */
export async function walBlocks(c: pg.Client, from: string, to: string): Promise<Record<string, { records: number; blocks: number; samePage: number }>> {
  const rows = (await c.query<{ rel: string; records: string; blocks: string; same: string }>(
    `WITH r AS (SELECT start_lsn, regexp_match(block_ref, 'rel [0-9]+/([0-9]+)/([0-9]+) (?:fork main )?blk ([0-9]+)') AS m
       FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
     b AS (SELECT r.m[2]::oid AS node, r.m[3] AS blk, r.m[3] = lag(r.m[3]) OVER (PARTITION BY r.m[2] ORDER BY r.start_lsn) AS same FROM r
       WHERE r.m[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database()))
     SELECT coalesce(k.relname, b.node::text) AS rel, count(*) AS records, count(DISTINCT blk) AS blocks, count(*) FILTER (WHERE same) AS same
     FROM b LEFT JOIN pg_class k ON k.relfilenode = b.node GROUP BY 1 ORDER BY 2 DESC`,
    [from, to],
  )).rows;
  return Object.fromEntries(rows.map((r) => [r.rel, { records: Number(r.records), blocks: Number(r.blocks), samePage: +(Number(r.same) / Number(r.records)).toFixed(2) }]));
}

export const lsn = async (c: pg.Client): Promise<string> => (await c.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l;

/** The WAL written so far, once flushed (pg_walinspect reads only flushed WAL; these sessions commit asynchronously). */
export async function flushedLsn(c: pg.Client): Promise<string> {
  const target = await lsn(c);
  const deadline = Date.now() + 30_000;
  while (!(await c.query<{ ok: boolean }>('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok', [target])).rows[0]!.ok) {
    if (Date.now() > deadline) throw new Error('pg-hot: the WAL was not flushed');
    await new Promise((r) => setTimeout(r, 50));
  }
  return target;
}

export interface Counters {
  upd: number;
  hot: number;
  historyIns: number;
  idxBlocks: Map<string, number>;
}

/** The database's counters, once every backend that wrote has reported (a backend reports at exit, at the latest). */
export async function counters(c: pg.Client, atLeast: number): Promise<Counters> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await c.query('SELECT pg_stat_clear_snapshot()');
    const [t] = (await c.query<{ upd: string; hot: string; ins: string }>(
      `SELECT t.n_tup_upd AS upd, t.n_tup_hot_upd AS hot, h.n_tup_ins AS ins FROM pg_stat_user_tables t, pg_stat_user_tables h
       WHERE t.relid = 'mdclaim.task'::regclass AND h.relid = 'mdclaim.history'::regclass`,
    )).rows;
    if (Number(t!.upd) >= atLeast || Date.now() > deadline) {
      const blocks = (await c.query<{ index: string; n: string }>(
        `SELECT indexrelname AS index, idx_blks_hit + idx_blks_read AS n FROM pg_statio_user_indexes WHERE schemaname = 'mdclaim'`,
      )).rows;
      return { upd: Number(t!.upd), hot: Number(t!.hot), historyIns: Number(t!.ins), idxBlocks: new Map(blocks.map((b) => [b.index, Number(b.n)])) };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const boardUrl = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set('board', name);
  return u.toString();
};

export function serverFigures(server: ServerFigures): Record<string, unknown> {
  const share = Object.fromEntries(Object.entries(server.share).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +v.toFixed(3)]));
  const cpu = server.cpuUsPerClaim === undefined ? {} : { serverCpuUsPerClaim: Math.round(server.cpuUsPerClaim) };
  return { samples: server.samples, share, lockWaiting: +server.lockWaiting.toFixed(3), ...cpu };
}

