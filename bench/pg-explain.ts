import { createRequire } from 'node:module';
import type { PgBoard } from 'mdclaim';
import pg from 'pg';
import { median } from './util.js';

// Where the PostgreSQL board's `next` spends its time on the server: EXPLAIN (ANALYZE, BUFFERS) of the very
// statement and parameters the board sends, caught on their way through pg's Client.prototype.query.

export interface ExplainRow {
  /** Tasks on the board, and how many of them are ⏰ above the first open one (0 for the half-claimed boards). */
  tasks: number;
  blocked: number;
  runs: number;
  /** Medians over the runs. */
  executionMs: number;
  planningMs: number;
  /** Shared buffers hit + read by the statement: its top node, and the data-modifying CTEs run after it (statementBlocks). */
  buffers: number;
  /** Actual rows of the top plan node (one: the claimed task's columns, or NULLs). */
  topRows: number;
  /** Nodes of the plan, its subplans' included: each is set up at every execution, whether it runs or not. */
  nodes: number;
}

interface Captured {
  text: string;
  values: unknown[];
}

/** How the board's `next` statement is told apart from its other statements (src/pg/claim.ts). */
const NEXT_MARK = 'waiting AS MATERIALIZED';
/** The request token's place among `next`'s parameters (src/pg/claim.ts, nextParams). */
const TOKEN_AT = 6;

let last: Captured | null = null;
let wrapped = false;

/** Catch every `next` the board sends: the bench and the mdclaim bundle must load the one same 'pg'. */
function capture(): void {
  if (wrapped) return;
  const theirs = createRequire(import.meta.resolve('mdclaim'))('pg') as typeof pg;
  if (theirs.Client !== pg.Client) throw new Error('postgres: explain: mdclaim loads another copy of pg than the bench');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const c = config as { text?: unknown; values?: unknown[] } | null;
    if (c && typeof c === 'object' && typeof c.text === 'string' && c.text.includes(NEXT_MARK)) last = { text: c.text, values: [...(c.values ?? [])] };
    return (query as (...a: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
  wrapped = true;
}

// The driver's own conversion of a parameter to the text it sends (an array to '{…}').
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (x: unknown) => unknown };

/** A value as the board's driver sends it, written as an SQL literal (its type is the prepared statement's). */
function literal(v: unknown): string {
  const prepared = prepareValue(v);
  return prepared === null || prepared === undefined ? 'NULL' : pg.escapeLiteral(String(prepared));
}

interface PlanNode {
  'Node Type': string;
  'Subplan Name'?: string;
  'CTE Name'?: string;
  'Actual Rows': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const countNodes = (n: PlanNode): number => 1 + (n.Plans ?? []).reduce((k, p) => k + countNodes(p), 0);

const blocks = (n: PlanNode) => n['Shared Hit Blocks'] + n['Shared Read Blocks'];

/**
 * The top node counts what ran under it; a data-modifying CTE that nothing reads (the history row,
 * a path lock dropped) is run to its end by PostgreSQL after the main query, so it is added on.
 */
function statementBlocks(top: PlanNode): number {
  const read = new Set<string>();
  const walk = (n: PlanNode): void => {
    if (n['CTE Name']) read.add(n['CTE Name']);
    n.Plans?.forEach(walk);
  };
  walk(top);
  const after = (top.Plans ?? []).filter((p) => p['Node Type'] === 'ModifyTable' && !read.has(p['Subplan Name']?.replace(/^CTE /, '') ?? ''));
  return blocks(top) + after.reduce((s, p) => s + blocks(p), 0);
}

interface Explained {
  Plan: PlanNode;
  'Planning Time': number;
  'Execution Time': number;
}

/**
 * Import `text` as the board, catch its `next` from one real call, import it again (so the board is
 * as given), then EXPLAIN ANALYZE that statement `runs` times after `warm` runs, each in a transaction
 * rolled back, on a session set as the board's are.
 */
export async function explainNext(board: PgBoard, url: string, text: string, shape: { tasks: number; blocked: number }, runs: number, warm = 2): Promise<ExplainRow> {
  capture();
  await board.importDocument(Buffer.from(text), { replace: true });
  last = null;
  await board.next({ by: 'bench-explain' });
  const got = last as Captured | null;
  if (!got) throw new Error('postgres: explain: the board sent no statement marked as next');
  if (typeof got.values[TOKEN_AT] !== 'string') throw new Error('postgres: explain: next\'s parameters are not where this bench expects them');
  await board.importDocument(Buffer.from(text), { replace: true });
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  try {
    // As the board's sessions are (src/pg/db.ts); untyped, as the driver prepares it, so the server infers the same types.
    await c.query('SET plan_cache_mode = force_generic_plan; SET jit = off');
    // The table as autovacuum leaves it after the imports, not as it happens to be when the statement first runs.
    await c.query('VACUUM (ANALYZE) mdclaim.task');
    await c.query(`PREPARE bench_next AS ${got.text}`);
    const ex: Explained[] = [];
    for (let i = 0; i < warm + runs; i++) {
      const args = got.values.map((v, k) => literal(k === TOKEN_AT ? `bench-explain-${i}-${Math.random().toString(36).slice(2)}` : v));
      await c.query('BEGIN');
      try {
        const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE bench_next(${args.join(', ')})`);
        if (i >= warm) ex.push((r.rows[0]['QUERY PLAN'] as Explained[])[0]!);
      } finally {
        await c.query('ROLLBACK');
      }
    }
    return {
      ...shape,
      runs,
      executionMs: median(ex.map((e) => e['Execution Time'])),
      planningMs: median(ex.map((e) => e['Planning Time'])),
      buffers: median(ex.map((e) => statementBlocks(e.Plan))),
      topRows: ex.at(-1)!.Plan['Actual Rows'],
      nodes: countNodes(ex.at(-1)!.Plan),
    };
  } finally {
    await c.end().catch(() => {});
  }
}
