import { parseMarker, type Status } from '../format/marker.js';
import { claimTimes, type Task } from '../format/task.js';

/** A task row as every statement returns it (see TASK_COLUMNS). */
export interface TaskRow {
  uid: string;
  id: string;
  text: string;
  line: number;
  status: Status;
  by: string | null;
  claimed_at: string | null;
  expires_at: string | null;
  lease_ms: string | null;
  commit: string | null;
  reason: string | null;
  section: string | null;
  tags: string[];
  marker: Buffer | null;
  body: Buffer;
  text_end: number;
  writes: string[];
  reads: string[];
  /** The attempts field (migration 4): the count the line records, and a retry's wait. */
  attempts: number | null;
  not_before: string | null;
  /** The locks taken under it, in the order taken; only where the statement reads them (LOCKS). */
  locks?: { mode: 'write' | 'read'; path: string; since: string }[] | null;
}

const RFC3339_UTC = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/** An instant as the file board writes it: RFC 3339 UTC to the second. */
export function isoSecond(expr: string): string {
  return `to_char((${expr}) AT TIME ZONE 'UTC', ${RFC3339_UTC})`;
}

/**
 * The fields a Task is built from, each a name and its SQL: row `t` as it is now, its id and line
 * from `v` (a task_view row of the same task; no write to a task's own row changes either). `json`
 * is how the field goes into a JSON object where its column type would not come back as TaskRow has
 * it (a bigint as a string, a bytea as the `\x` hex fromJson reads).
 */
function taskFields(t: string, v: string, line: string): Array<{ name: keyof TaskRow; sql: string; json?: string }> {
  return [
    { name: 'uid', sql: `${t}.uid`, json: `${t}.uid::text` },
    { name: 'id', sql: `${v}.id` },
    { name: 'text', sql: `${t}.text` },
    { name: 'line', sql: line },
    { name: 'status', sql: `${t}.status` },
    { name: 'by', sql: `${t}.by` },
    { name: 'claimed_at', sql: isoSecond(`${t}.claimed_at`) },
    { name: 'expires_at', sql: isoSecond(`${t}.expires_at`) },
    { name: 'lease_ms', sql: `${t}.lease_ms`, json: `${t}.lease_ms::text` },
    { name: 'commit', sql: `${t}.commit` },
    { name: 'reason', sql: `${t}.reason` },
    { name: 'section', sql: `${t}.section` },
    { name: 'tags', sql: `${t}.tags` },
    { name: 'marker', sql: `${t}.marker`, json: `encode(${t}.marker, 'hex')` },
    { name: 'body', sql: `${t}.body`, json: `encode(${t}.body, 'hex')` },
    { name: 'text_end', sql: `${t}.text_end` },
    { name: 'writes', sql: `${t}.writes` },
    { name: 'reads', sql: `${t}.reads` },
    { name: 'attempts', sql: `${t}.attempts` },
    { name: 'not_before', sql: isoSecond(`${t}.not_before`) },
  ];
}

/** The columns of a TaskRow (see taskFields). */
export function taskColumns(t: string, v = t, line = `${v}.line`): string {
  return taskFields(t, v, line).map((f) => `${f.sql} AS ${f.name}`).join(', ');
}

/**
 * The same fields as one JSON column (NULL where `t` is): what a claim returns. A row of twenty
 * columns costs the client a type parser per column, set up again for every result, where one JSON
 * value is parsed natively; read it with fromJson.
 */
export function taskJson(t: string, v = t, line = `${v}.line`): string {
  return `CASE WHEN ${t}.uid IS NULL THEN NULL ELSE json_build_object(${taskFields(t, v, line).map((f) => `'${f.name}', ${f.json ?? f.sql}`).join(', ')}) END`;
}

/** A taskJson value as the TaskRow the columns give. */
export function fromJson(j: Omit<TaskRow, 'marker' | 'body'> & { marker: string | null; body: string }): TaskRow {
  return { ...j, marker: j.marker === null ? null : hexBytes(j.marker), body: hexBytes(j.body) };
}

function hexBytes(s: string): Buffer {
  return Buffer.from(s, 'hex');
}

/** A column of the locks task `t` has taken, as its statement's snapshot sees them. */
export function locksColumn(t: string): string {
  return `${locksValue(t)} AS locks`;
}

/** The same value, for use inside an expression. */
export function locksValue(t: string): string {
  return `(SELECT json_agg(json_build_object('mode', l.mode, 'path', l.path, 'since', ${isoSecond('l.since')}) ORDER BY l.seq)
    FROM mdclaim.path_lock l WHERE l.task = ${t}.uid)`;
}

/** A row's task text from the line's bytes, as the file board reads it (the text column cannot hold a NUL). */
export function rowText(r: Pick<TaskRow, 'body' | 'text_end'>): string {
  return r.body.subarray(0, r.text_end).toString('utf8').replace(/^[ \t]+/, '');
}

/** The same Task the file board gives for the same line. */
export function toTask(r: TaskRow): Task {
  const task: Task = { id: r.id, text: rowText(r), line: r.line, status: r.status, tags: r.tags };
  // A marker still as imported keeps its fields as written (an ADW claim's odd spacing, a +02:00 time).
  const asWritten = r.marker === null ? null : parseMarker(r.marker.toString('latin1'), 0);
  const by = asWritten?.by ?? r.by;
  if (by !== null) task.by = by;
  // claimedAt, lease and expiresAt exactly as the file board derives them from the line.
  if (asWritten?.claimedAt !== undefined) Object.assign(task, claimTimes(asWritten));
  else if (r.claimed_at !== null) Object.assign(task, claimTimes({ claimedAt: r.claimed_at, leaseMs: Number(r.lease_ms) }));
  const commit = asWritten?.commit ?? r.commit;
  if (commit !== null) task.commit = commit;
  if (asWritten?.fields !== undefined) task.fields = asWritten.fields;
  if (r.reason !== null) task.reason = r.reason;
  if (r.attempts !== null) task.attempts = r.attempts;
  if (r.not_before !== null) task.notBefore = r.not_before;
  if (r.section !== null) task.section = r.section;
  if (r.writes.length > 0) task.writes = r.writes;
  if (r.reads.length > 0) task.reads = r.reads;
  if (r.locks) task.locks = r.locks;
  return task;
}

export { formatDuration as formatLease } from '../format/duration.js';
