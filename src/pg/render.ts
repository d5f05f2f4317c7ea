import { bytes } from '../format/bytes.js';
import { lineEnding, lockIndentAfter, renderLock, type PathLock } from '../format/locks.js';
import { renderMarker, type Status } from '../format/marker.js';

/** What a row needs to be written out: its bytes and, once changed, its status fields. */
export interface DocRow {
  uid: string;
  position: string;
  lead: Buffer;
  marker: Buffer | null;
  body: Buffer;
  status: Status;
  by: string | null;
  claimed_at: string | null;
  lease_ms: string | null;
  commit: string | null;
  /** The locks taken under it, in the order taken. */
  locks: PathLock[] | null;
}

/** The selected columns DocRow is read from (claimed_at already as the file writes it). */
export const DOC_COLUMNS = `t.uid, t.position, t.lead, t.marker, t.body, t.status, t.by,
  to_char(t.claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS claimed_at, t.lease_ms, t.commit,
  (SELECT json_agg(json_build_object('mode', l.mode, 'path', l.path, 'since', to_char(l.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) ORDER BY l.seq)
    FROM mdclaim.path_lock l WHERE l.task = t.uid) AS locks`;

/**
 * The marker as the file holds it: as imported until the first write, then
 * rendered as the file board renders it; a claim over a line that was `[]`
 * (its marker column, see bareMarker) with U+FE0F, and `[]` once given back.
 */
export function markerBytes(r: DocRow): Buffer {
  const bare = r.marker !== null && r.marker.length === 2 && r.marker[0] === 0x5b && r.marker[1] === 0x5d;
  if (r.marker !== null && !(bare && r.status !== 'open')) return r.marker;
  const m = renderMarker({
    status: r.status,
    bare,
    ...(r.by === null ? {} : { by: r.by }),
    ...(r.claimed_at === null ? {} : { claimedAt: r.claimed_at }),
    ...(r.lease_ms === null ? {} : { leaseMs: Number(r.lease_ms) }),
    ...(r.commit === null ? {} : { commit: r.commit }),
  });
  return Buffer.from(bytes(m), 'latin1');
}

/** The whole document: every row's lead, marker (as `marker` gives it) and body in order, with its lock lines, then the tail. */
export function renderDocument(rows: readonly DocRow[], tail: Buffer, marker: (r: DocRow) => Buffer = markerBytes): Buffer {
  const parts: Buffer[] = [];
  for (const r of rows) {
    parts.push(r.lead, marker(r), r.body);
    if (r.locks) parts.push(lockLines(r));
  }
  parts.push(tail);
  return Buffer.concat(parts);
}

/**
 * A row's locks as the file board's lock lines under its task line, so that
 * `export` shows who holds what as `cat` does on a file board. They live in
 * mdclaim.path_lock, not in the row's bytes, and are written after the line.
 */
function lockLines(r: DocRow): Buffer {
  const lead = r.lead.toString('latin1');
  const prefix = lead.slice(Math.max(lead.lastIndexOf('\n'), lead.lastIndexOf('\r')) + 1);
  const body = r.body.toString('latin1');
  const cut = body.endsWith('\r\n') ? 2 : body.endsWith('\n') || body.endsWith('\r') ? 1 : 0;
  const eol = cut > 0 ? body.slice(body.length - cut) : lineEnding(body, body.length);
  const indent = lockIndentAfter(prefix);
  // The line ended without a line break (the last of the document): give it one first.
  let out = cut > 0 ? '' : eol;
  r.locks!.forEach((l, i) => (out += bytes(renderLock(indent, l)) + (cut > 0 || i < r.locks!.length - 1 ? eol : '')));
  return Buffer.from(out, 'latin1');
}
