import { span } from '../format/span.js';
import { paint, type Line } from './paint.js';
import { PLAIN } from './style.js';
import type { Summary } from './summary.js';
import { blocks, headLines } from './view.js';

/** `status` as lines of plain text: the header, the oldest claim, then every block in full. */
export function statusLines(location: string, s: Summary): string[] {
  const lines: Line[] = [[[`${location} at ${s.at}`]], ...headLines(s, PLAIN)];
  const o = s.oldestClaim;
  if (o) lines.push([[`oldest claim: ${o.id} by ${o.by ?? 'unnamed'}, held ${span(o.heldMs ?? 0)}${o.state === 'lapsed' ? ' (lapsed)' : ''}`]]);
  for (const b of blocks(s, null, PLAIN, () => '')) {
    if (b.lines.length === 0) continue;
    lines.push([], b.title, ...b.lines);
  }
  return lines.map((l) => paint(l, Infinity, PLAIN).trimEnd());
}
