import { availableParallelism, loadavg } from 'node:os';
import { PgBoard } from 'mdclaim';
import type pg from 'pg';
import { explainNext } from './pg-explain.js';
import { hotProbe } from './pg-hot-probe.js';
import { boardUrl, client, counters, flushedLsn, freshDatabase, lsn, serverFigures, walBlocks, walRecords } from './pg-hot-util.js';
import { ownBackends, watchServer } from './pg-server.js';
import { boardText } from './util.js';

// What a PostgreSQL claim writes, in the server's own words, on a fresh database per table layout: the
// task table's updates and how many were HOT, the WAL records each relation got per claim (an index
// entry is one insert record), the index blocks touched per claim, where each claimed row's new
// version went (its own page or another), the plan of `next`, and what 8 concurrent claimers'
// backends were doing and which pages their writes went through; then what a HOT claim would trade (pg-hot-probe.ts). No wall-clock rate: on a
// loaded machine those belong side by side in the bench's own PostgreSQL case.
// Run: npm run -s bench:pg-hot [-- claims]  (superuser: it creates pg_walinspect in its own databases)

interface Layout {
  name: string;
  /** Run after the board's own migrations, before the board is filled. */
  sql: string;
}

const LAYOUTS: Layout[] = [
  { name: 'as shipped (fillfactor 100)', sql: '' },
  { name: 'fillfactor 60', sql: 'ALTER TABLE mdclaim.task SET (fillfactor = 60)' },
];

/** One claimer, `claims` claims from a board of `tasks`: the writes they made. */
async function oneClaimer(url: string, sql: pg.Client, tasks: number, claims: number): Promise<Record<string, unknown>> {
  // Filled by a board of its own, closed, so that its backend has reported its counts before they are reset.
  const filler = new PgBoard(boardUrl(url, 'one'), { pool: 1 });
  await filler.importDocument(Buffer.from(boardText(tasks)), { replace: true });
  await filler.close();
  const board = new PgBoard(boardUrl(url, 'one'), { pool: 1 });
  await sql.query('VACUUM (ANALYZE) mdclaim.task');
  const pages0 = Number((await sql.query(`SELECT pg_relation_size('mdclaim.task') / current_setting('block_size')::int AS n`)).rows[0].n);
  const where0 = new Map((await sql.query<{ uid: string; blk: string }>(`SELECT uid, (ctid::text::point)[0] AS blk FROM mdclaim.task`)).rows.map((r) => [r.uid, r.blk]));
  await new Promise((r) => setTimeout(r, 1500));
  await sql.query('SELECT pg_stat_reset()');
  const lsn0 = await lsn(sql);
  for (let i = 0; i < claims; i++) if ((await board.next({ by: `c${i % 8}` })) === null) throw new Error('pg-hot: the board ran dry');
  await board.close();
  const n = await counters(sql, claims);
  const wal = await walRecords(sql, lsn0, await flushedLsn(sql));
  const pages1 = Number((await sql.query(`SELECT pg_relation_size('mdclaim.task') / current_setting('block_size')::int AS n`)).rows[0].n);
  const moved = (await sql.query<{ uid: string; blk: string }>(`SELECT uid, (ctid::text::point)[0] AS blk FROM mdclaim.task WHERE status = 'claimed'`)).rows;
  return {
    claims,
    updates: n.upd,
    hotUpdates: n.hot,
    hotShare: +(n.hot / Math.max(n.upd, 1)).toFixed(3),
    historyRows: n.historyIns,
    walRecordsPerClaim: Object.fromEntries([...wal].map(([k, v]) => [k, +(v / claims).toFixed(2)])),
    indexBlocksPerClaim: Object.fromEntries([...n.idxBlocks].map(([k, v]) => [k, +(v / claims).toFixed(2)])),
    newVersionOnOwnPage: +(moved.filter((r) => where0.get(r.uid) === r.blk).length / Math.max(moved.length, 1)).toFixed(3),
    heapPages: [pages0, pages1],
  };
}

/** `procs` claimers at once (one connection each, in this process) draining a board of `tasks`: their backends' wait events. */
async function concurrent(url: string, sql: pg.Client, tasks: number, procs: number): Promise<Record<string, unknown>> {
  const boards = Array.from({ length: procs }, () => new PgBoard(boardUrl(url, 'many'), { pool: 1 }));
  await boards[0]!.importDocument(Buffer.from(boardText(tasks)), { replace: true });
  await sql.query('VACUUM (ANALYZE) mdclaim.task');
  const mine = await ownBackends(sql);
  // Connect each without claiming: a tag no task has.
  for (const b of boards) if ((await b.next({ by: 'warm', tags: ['no-such-tag'] })) !== null) throw new Error('pg-hot: the warm-up claimed');
  const lsn0 = await lsn(sql);
  const watch = await watchServer(sql, mine);
  let claims = 0;
  await Promise.all(boards.map(async (b, i) => {
    while ((await b.next({ by: `w${i}` })) !== null) claims++;
  }));
  const server = await watch.stop(claims);
  await Promise.all(boards.map((b) => b.close()));
  const blocks = await walBlocks(sql, lsn0, await flushedLsn(sql));
  const written = Object.fromEntries(Object.entries(blocks).filter(([, v]) => v.records >= claims / 2));
  return { procs, claims, ...serverFigures(server), walBlocks: written };
}

async function main(): Promise<void> {
  const claims = Number(process.argv[2] ?? 1000);
  const loadAtStart = loadavg().map((x) => +x.toFixed(1));
  const out: Record<string, unknown>[] = [];
  let probe: Record<string, unknown> = {};
  for (const [i, layout] of LAYOUTS.entries()) {
    const db = await freshDatabase(String(i));
    const sql = await client(db.url);
    try {
      // The board's own migrations, then the layout's change.
      const setup = new PgBoard(boardUrl(db.url, 'setup'), { pool: 1 });
      await setup.importDocument(Buffer.from(boardText(1)), { replace: true });
      await setup.close();
      await sql.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
      if (layout.sql) await sql.query(layout.sql);
      const [ff] = (await sql.query(`SELECT coalesce(array_to_string(reloptions, ','), '') AS o FROM pg_class WHERE oid = 'mdclaim.task'::regclass`)).rows;
      const one = await oneClaimer(db.url, sql, 2 * claims, claims);
      const explainBoard = new PgBoard(boardUrl(db.url, 'explain'), { pool: 1 });
      const plan = await explainNext(explainBoard, boardUrl(db.url, 'explain'), boardText(1000), { tasks: 1000, blocked: 0 }, 5);
      await explainBoard.close();
      const many = await concurrent(db.url, sql, 2 * claims, 8);
      out.push({ layout: layout.name, reloptions: ff.o, one, plan: { nodes: plan.nodes, buffers: plan.buffers }, many });
      if (i === 0) probe = await hotProbe(db.url, sql, 20_000, 200, 2000);
    } finally {
      await sql.end();
      await db.drop();
    }
  }
  console.log(JSON.stringify({ cores: availableParallelism(), loadAtStart, loadAtEnd: loadavg().map((x) => +x.toFixed(1)), layouts: out, hotProbe: probe }, null, 2));
}

await main();
