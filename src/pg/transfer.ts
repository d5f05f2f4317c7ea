import { claimInstant } from '../format/claim-time.js';
import { MdclaimError } from '../errors.js';
import type { Conn } from './db.js';
import { createBoard, lockStructure } from './boards.js';
import { logged } from './history-sql.js';
import { DOC_COLUMNS, renderDocument, type DocRow } from './render.js';
import { splitDocument, type Row } from './split.js';

/** Rows inserted by one statement of an import (100,000 rows took about 12% less time in slices of this size than in one). */
const IMPORT_SLICE = 10_000;

/** Positions leave room for this many inserts at one place before rows must move. */
export const GAP = 1n << 20n;

/**
 * PostgreSQL text holds no U+0000. The bytes of the document (bytea) keep
 * every NUL; the derived text columns, used for matching and display, carry
 * U+FFFD in its place, and a Task's text is read back from the bytes.
 */
function sqlText<T extends string | null>(s: T): T {
  return (s === null ? s : s.replaceAll('\u0000', '\uFFFD')) as T;
}

/** The rows of a split document as one JSON parameter (bytea as hex): one INSERT for the whole board. */
export function rowsJson(rows: readonly Row[], positions: readonly bigint[]): string {
  return JSON.stringify(
    rows.map((r, i) => {
      // The instant the line's claim time names, read as the file board reads it (split refused one that names none).
      const instant = r.claimedAt === null ? null : claimInstant(r.claimedAt);
      const at = instant === null ? null : new Date(instant).toISOString();
      return {
      position: positions[i]!.toString(),
      lead: r.lead.toString('hex'),
      marker: r.marker.toString('hex'),
      body: r.body.toString('hex'),
      text_end: r.textEnd,
      lead_breaks: r.leadBreaks,
      body_breaks: r.bodyBreaks,
      text: sqlText(r.text),
      key: r.key,
      hash: r.hash,
      tags: r.tags.map(sqlText),
      section: sqlText(r.section),
      worktree: sqlText(r.worktree),
      status: r.status,
      by: sqlText(r.by),
      claimed_at: at,
      lease_ms: at === null ? null : r.leaseMs,
      commit: sqlText(r.commit),
      reason: sqlText(r.reason),
      writes: r.writes,
      reads: r.reads,
      after: r.after,
      attempts: r.attempts,
      not_before: r.notBefore,
      tries_len: r.triesLen,
      };
    }),
  );
}

/** INSERT the rows of $2 (rowsJson) into board $1; `marker` kept as written. RETURNING the new rows. */
export const INSERT_ROWS = `INSERT INTO mdclaim.task (board, position, lead, marker, body, text_end, lead_breaks, body_breaks,
    text, key, hash, tags, section, worktree, status, by, claimed_at, lease_ms, expires_at, commit, reason, writes, reads, attempts, not_before, tries_len, after)
  SELECT $1, r.position, decode(r.lead, 'hex'), decode(r.marker, 'hex'), decode(r.body, 'hex'), r.text_end, r.lead_breaks, r.body_breaks,
    r.text, r.key, r.hash, ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.section, r.worktree, r.status, r.by,
    r.claimed_at::timestamptz, CASE WHEN r.claimed_at IS NOT NULL THEN r.lease_ms END,
    r.claimed_at::timestamptz + r.lease_ms * interval '1 millisecond', r.commit, r.reason,
    ARRAY(SELECT jsonb_array_elements_text(r.writes)), ARRAY(SELECT jsonb_array_elements_text(r.reads)), r.attempts, r.not_before::timestamptz, r.tries_len,
    ARRAY(SELECT jsonb_array_elements_text(r.after))
  FROM jsonb_to_recordset($2::jsonb) AS r(position bigint, lead text, marker text, body text, text_end int, lead_breaks int, body_breaks int,
    text text, key text, hash text, tags jsonb, section text, worktree text, status text, by text, claimed_at text, lease_ms bigint, commit text, reason text, writes jsonb, reads jsonb,
    attempts int, not_before text, tries_len int, after jsonb)
  RETURNING *`;

/**
 * Load a markdown board into the database under one name, in one
 * transaction: export right after gives the same bytes back. `onProgress`
 * hears after each slice of rows how many of them are in.
 */
export async function importDocument(
  c: Conn, name: string, doc: Buffer, replace: boolean, onProgress?: (done: number, total: number) => void,
): Promise<{ board: number; tasks: number; replaced: number }> {
  const { rows, tail } = splitDocument(doc.toString('latin1'));
  const board = await createBoard(c, name);
  await lockStructure(c, board);
  const [had] = await c.query<{ tasks: number; tail: number }>(
    `SELECT (SELECT count(*)::int FROM mdclaim.task WHERE board = $1) AS tasks, (SELECT length(tail) FROM mdclaim.board WHERE id = $1) AS tail`,
    [board],
  );
  const existing = had!.tasks;
  if ((existing > 0 || had!.tail > 0) && !replace) {
    throw new MdclaimError('CONFLICT', `board "${name}" already holds ${existing} task${existing === 1 ? '' : 's'}: pass --replace to overwrite it`);
  }
  if (existing > 0) await c.query('DELETE FROM mdclaim.task WHERE board = $1', [board]);
  const positions = rows.map((_, i) => BigInt(i + 1) * GAP);
  const insert = `WITH inserted AS (${INSERT_ROWS}),
     ${logged({ from: 'inserted', event: `'imported'`, by: 'by', claimedAt: 'claimed_at', leaseMs: 'lease_ms', commit: 'commit', reason: 'reason', via: 'import' })}
     SELECT count(*) FROM inserted`;
  // In slices, all in this one transaction: a slice's JSON stays small, and a big board reports as it goes.
  for (let at = 0; at < rows.length; at += IMPORT_SLICE) {
    const end = Math.min(rows.length, at + IMPORT_SLICE);
    await c.query(insert, [board, rowsJson(rows.slice(at, end), positions.slice(at, end))]);
    onProgress?.(end, rows.length);
  }
  const locks = rows.flatMap((r, i) => r.locks.map((l) => ({ position: positions[i]!.toString(), ...l })));
  if (locks.length > 0) {
    await c.query(
      `INSERT INTO mdclaim.path_lock (task, mode, path, since)
       SELECT t.uid, r.mode, r.path, r.since::timestamptz FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS j(lock, ord)
       CROSS JOIN LATERAL jsonb_to_record(j.lock) AS r(position bigint, mode text, path text, since text)
       JOIN mdclaim.task t ON t.board = $1 AND t.position = r.position ORDER BY j.ord`,
      [board, JSON.stringify(locks)],
    );
  }
  await c.query('UPDATE mdclaim.board SET tail = $2 WHERE id = $1', [board, tail]);
  // Every row's line and [⏰] readiness, kept from here on by the writers that change them.
  await c.query('SELECT mdclaim.rebase($1)', [board]);
  if (rows.length > 0) await analyzeIfUnknown(c);
  return { board, tasks: rows.length, replaced: existing };
}

/**
 * Statistics for the task table where it has none yet to go by (a new database, autovacuum not yet come by or
 * turned off): the planner then takes a board for a handful of rows, and the claim's plan, made once per connection,
 * read every task of the board through another index and sorted them at each claim, where it walks task_first
 * in order (test/pg-claim-plan.test.ts). Run in the import's transaction, so it counts the rows just written. The
 * server skips a table this role does not own, with a warning, and the import stands.
 */
async function analyzeIfUnknown(c: Conn): Promise<void> {
  const [t] = await c.query<{ unknown: boolean }>(`SELECT reltuples <= 0 AS unknown FROM pg_class WHERE oid = 'mdclaim.task'::regclass`);
  if (t?.unknown) await c.query('ANALYZE mdclaim.task');
}

/** The rows and tail of a board, as one consistent read (call inside a transaction). */
export async function readDocument(c: Conn, board: number): Promise<{ rows: DocRow[]; tail: Buffer }> {
  const rows = await c.query<DocRow>(`SELECT ${DOC_COLUMNS} FROM mdclaim.task t WHERE t.board = $1 ORDER BY t.position`, [board]);
  const [b] = await c.query<{ tail: Buffer }>('SELECT tail FROM mdclaim.board WHERE id = $1', [board]);
  return { rows, tail: b?.tail ?? Buffer.alloc(0) };
}

/** The board in the file format: what `cat tasks.md` would show. */
export async function exportDocument(c: Conn, board: number): Promise<Buffer> {
  await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  const { rows, tail } = await readDocument(c, board);
  return renderDocument(rows, tail);
}
