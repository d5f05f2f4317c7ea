import { bytes } from '../format/bytes.js';
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
}

/** The selected columns DocRow is read from (claimed_at already as the file writes it). */
export const DOC_COLUMNS = `t.uid, t.position, t.lead, t.marker, t.body, t.status, t.by,
  to_char(t.claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS claimed_at, t.lease_ms, t.commit`;

/** The marker as the file holds it: as imported until the first write, then rendered as the file board renders it. */
export function markerBytes(r: DocRow): Buffer {
  if (r.marker !== null) return r.marker;
  const m = renderMarker({
    status: r.status,
    ...(r.by === null ? {} : { by: r.by }),
    ...(r.claimed_at === null ? {} : { claimedAt: r.claimed_at }),
    ...(r.lease_ms === null ? {} : { leaseMs: Number(r.lease_ms) }),
    ...(r.commit === null ? {} : { commit: r.commit }),
  });
  return Buffer.from(bytes(m), 'latin1');
}

/** The whole document: every row's lead, marker and body in order, then the tail. */
export function renderDocument(rows: readonly DocRow[], tail: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (const r of rows) parts.push(r.lead, markerBytes(r), r.body);
  parts.push(tail);
  return Buffer.concat(parts);
}
