/**
 * The marker column of row `t` through a claim and its give-back: `[]` while
 * the line was open as `[]` (its marker as imported, or the claim of one,
 * `[🟡️…`, U+FE0F after the 🟡), else NULL. Export renders a claim over `[]`
 * with U+FE0F and writes `[]` again when it is given back, as the file board
 * does (see Marker.bare in src/format/marker.ts).
 */
export function bareMarker(t: string): string {
  return `CASE WHEN ${t}.marker = decode('5b5d', 'hex') OR substring(${t}.marker FOR 8) = decode('5bf09f9fa1efb88f', 'hex')
    THEN decode('5b5d', 'hex') END`;
}
