import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/pg/board.js';
import { boardUrl, PG_URL, pgReachable, pgTitle, sql, uniqueBoard } from './helpers/pg.js';

// What the server sets up for a claim: a claim's statement is prepared once and its plan set up at
// every execution, node by node, whether a node runs or not. The path rule is one call in it
// (migration 7), not the body of mdclaim.blocking_holds inlined into each of its two candidates.

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Function Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}

/** The types of next's parameters (src/pg/claim.ts, nextParams). */
const TYPES = ['int', 'text', 'bigint', 'text[]', 'text', 'int', 'text', 'boolean', 'bigint[]'];

const literal = (v: unknown) => (v === null ? 'NULL' : Array.isArray(v) ? pg.escapeLiteral(`{${v.join(',')}}`) : pg.escapeLiteral(String(v)));

/** Every node of the generic plan `client` makes of next's statement `text` for `values`, as the board's sessions plan it (rolled back, nothing claimed). */
async function genericPlan(client: pg.Client, text: string, values: unknown[]): Promise<PlanNode[]> {
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE claim_plan(${TYPES.join(', ')}) AS ${text}`);
  await client.query('BEGIN');
  try {
    const [row] = (await client.query(`EXPLAIN (FORMAT JSON) EXECUTE claim_plan(${values.map(literal).join(', ')})`)).rows;
    return nodes((row['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The statement and parameters of the `next` that `run` sends, caught on their way through the driver, and what it returned. */
async function catchingNext<T>(run: () => Promise<T>): Promise<{ text: string; values: unknown[]; result: T }> {
  let caught: { text: string; values: unknown[] } | null = null;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const c = config as { text?: unknown; values?: unknown[] } | null;
    if (c && typeof c.text === 'string' && c.text.includes('waiting AS MATERIALIZED')) caught = { text: c.text, values: [...(c.values ?? [])] };
    return (query as (...a: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
  let result: T;
  try {
    result = await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  if (caught === null) throw new Error('no next statement was sent');
  const c: { text: string; values: unknown[] } = caught;
  return { ...c, result };
}

/** The statement and parameters of a bare `next` (no tags asked) the board sends. */
async function caughtNext(board: PgBoard): Promise<{ text: string; values: unknown[] }> {
  const c = await catchingNext(() => board.next({ by: 'ann', tags: ['no-such-tag'] }));
  return { text: c.text, values: c.values.map((v, i) => (i === 3 ? [] : v)) };
}

/**
 * A database of its own, made for `work` and dropped after it, holding one board of `tasks` open tasks
 * imported through the board, and a client of that database beside the board's own connection.
 */
async function onImportedBoard(prefix: string, tasks: number, work: (board: PgBoard, client: pg.Client) => Promise<void>): Promise<void> {
  const db = `mdclaim_${prefix}_${process.pid}_${Date.now().toString(36)}`;
  await sql(`CREATE DATABASE ${db}`);
  const url = new URL(PG_URL);
  url.pathname = `/${db}`;
  url.searchParams.set('board', 'open');
  const board = new PgBoard(url.toString(), { pool: 1 });
  try {
    const lines = Array.from({ length: tasks }, (_, i) => `- [ ] task ${i + 1}`);
    await board.importDocument(Buffer.from(`# Tasks\n\n${lines.join('\n')}\n`), { replace: true });
    const client = new pg.Client({ connectionString: url.toString().replace(/\?.*$/, '') });
    await client.connect();
    try {
      await work(board, client);
    } finally {
      await client.end();
    }
  } finally {
    await board.close();
    await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  }
}

describe.skipIf(!pgReachable)(pgTitle("the PostgreSQL board's claim statement"), () => {
  const name = uniqueBoard('plan');
  const board = new PgBoard(boardUrl(name), { pool: 1 });
  afterAll(async () => {
    await board.close();
  });

  it('carries the path rule as one call: its generic plan scans no declared path, and stays small', async () => {
    await board.importDocument(Buffer.from('# Tasks\n\n- [ ] one\n- [ ] two {writes: src/}\n'), { replace: true });
    const { text, values, result } = await catchingNext(() => board.next({ by: 'ann' }));
    expect(result?.text).toBe('one');
    const [board_id] = values;
    expect(values).toHaveLength(TYPES.length);
    const client = new pg.Client({ connectionString: boardUrl(name).replace(/\?.*$/, '') });
    await client.connect();
    try {
      const all = await genericPlan(client, text, values);
      expect(all.filter((n) => n['Function Name'] === 'unnest')).toEqual([]);
      // With migration 6's view it was 72 nodes; the claim needs 38.
      expect(all.length).toBeLessThan(50);
    } finally {
      await client.end();
    }
    expect(board_id).toEqual((await sql<{ id: number }>('SELECT id FROM mdclaim.board WHERE name = $1', [name]))[0]!.id);
  });

  it("walks the board in order even where the statistics say the whole board is open (a board just imported)", async () => {
    // A database of its own, so that the statistics are this board's alone: 2,000 open tasks, analyzed.
    await onImportedBoard('plan', 2000, async (open, client) => {
      await client.query('ANALYZE mdclaim.task');
      const { text, values } = await caughtNext(open);
      const all = await genericPlan(client, text, values);
      // The first waiting task is the first entry of task_first: read in order, never the whole table sorted.
      expect(all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'task')).toEqual([]);
    });
  });

  it('walks the board in order from the first import into a new database, with no vacuum or analyze run there yet', async () => {
    // Where nothing has vacuumed or analyzed the task table yet (a new database, autovacuum not yet come or turned off),
    // the planner guessed the board at a handful of rows and read every task of it by another index at each claim, then sorted them.
    await onImportedBoard('plan_new', 1000, async (first, client) => {
      const { text, values } = await caughtNext(first);
      const all = await genericPlan(client, text, values);
      const scans = all.filter((n) => n['Relation Name'] === 'task' && n['Index Name'] !== undefined).map((n) => n['Index Name']);
      // The waiting candidate is read from task_first in board order; the lapsed one from task_lapsing; the claimed row by its key.
      expect(scans).toContain('task_first');
      expect(scans.filter((i) => !['task_first', 'task_lapsing', 'task_pkey', 'task_key'].includes(i!))).toEqual([]);
    });
  });
});
