import { add as addToDocument } from '../board/add.js';
import { resultOf } from '../board/plan.js';
import { MdclaimError } from '../errors.js';
import { applyEditsToBuffer } from '../format/edit.js';
import type { Task } from '../format/task.js';
import { lockStructure } from './boards.js';
import type { Conn } from './db.js';
import { logged } from './history-sql.js';
import { markerBytes, renderDocument, type DocRow } from './render.js';
import { taskColumns, toTask, type TaskRow } from './rows.js';
import { splitDocument, type Row } from './split.js';
import { GAP, INSERT_ROWS, readDocument, rowsJson } from './transfer.js';

// add decides where the new line goes exactly as the file board does: it
// runs the file board's own add over the document and splits the result
// into rows again. Rows carry their line ending in their body, so an
// insertion after a task's line touches no other row (only the board's
// tail, or a lead when the task goes under a heading with no tasks yet).
// It writes only the bytes and section of rows, never a status, so a claim
// racing it is never undone; and it holds the board's structural lock.

/** A row's marker as the document shows it: where the line goes never depends on it, the open form it is written in does (see openForm). */
const placeholder = markerBytes;

export async function addTask(c: Conn, board: number, text: string, section: string | undefined): Promise<Task> {
  await lockStructure(c, board);
  const { rows: old, tail } = await readDocument(c, board);
  // With its lock lines, as export writes them: where a line goes can depend on them (a list item
  // under a bare task line asks for a blank line before the next one). Split again, they leave the rows' bytes.
  const doc = renderDocument(old, tail, placeholder);
  const change = addToDocument(doc.toString('latin1'), text, section);
  const next = splitDocument(applyEditsToBuffer(doc, change.edits).toString('latin1'));
  const k = indexOfLine(next.rows, resultOf(change).line);
  if (next.rows.length !== old.length + 1 || k < 0) throw drift();

  const moved: { uid: string; row: Row }[] = [];
  next.rows.forEach((row, i) => {
    if (i === k) return;
    const was = old[i < k ? i : i - 1]!;
    if (!row.marker.equals(placeholder(was))) throw drift();
    if (!row.lead.equals(was.lead) || !row.body.equals(was.body)) moved.push({ uid: was.uid, row });
  });
  for (const { uid, row } of moved) {
    await c.query(
      `UPDATE mdclaim.task SET lead = $2, body = $3, lead_breaks = $4, body_breaks = $5, section = $6, worktree = $7 WHERE uid = $1`,
      [uid, row.lead, row.body, row.leadBreaks, row.bodyBreaks, row.section, row.worktree],
    );
  }
  if (!next.tail.equals(tail)) await c.query('UPDATE mdclaim.board SET tail = $2 WHERE id = $1', [board, next.tail]);

  const position = await positionAt(c, board, old, k);
  const [inserted] = await c.query<{ uid: string }>(
    `WITH inserted AS (${INSERT_ROWS}),
     ${logged({ from: 'inserted', event: `'added'`, by: 'NULL', via: 'add' })}
     SELECT uid FROM inserted`,
    [board, rowsJson([next.rows[k]!], [position])],
  );
  // The lines below it moved down, and a [⏰] under it may no longer be ready: bring the kept state up to date.
  await c.query('SELECT mdclaim.rebase($1)', [board]);
  // Read back in a statement of its own: the id and line rules see the new row only from then on.
  const [task] = await c.query<TaskRow>(`SELECT ${taskColumns('v')} FROM mdclaim.task_view v WHERE v.uid = $1`, [inserted!.uid]);
  return toTask(task!);
}

/** A position between the rows around index k; when there is no room, move the rows below up (positions only grow). */
async function positionAt(c: Conn, board: number, old: readonly DocRow[], k: number): Promise<bigint> {
  const before = k > 0 ? BigInt(old[k - 1]!.position) : 0n;
  if (k === old.length) return before + GAP;
  const after = BigInt(old[k]!.position);
  if (after - before >= 2n) return (before + after) / 2n;
  await c.query('UPDATE mdclaim.task SET position = position + $3 WHERE board = $1 AND position >= $2', [board, after.toString(), GAP.toString()]);
  return (before + after + GAP) / 2n;
}

/** The row whose marker is on `line` of the document, each row's lock lines counted under it. */
function indexOfLine(rows: readonly Row[], line: number): number {
  let at = 1;
  for (let i = 0; i < rows.length; i++) {
    at += rows[i]!.leadBreaks;
    if (at === line) return i;
    at += rows[i]!.bodyBreaks + rows[i]!.locks.length;
  }
  return -1;
}

function drift(): MdclaimError {
  return new MdclaimError('VERIFY', 'the board would not read back as its rows after this add; nothing was written');
}
