// A table of the report, and how its figures are written.

export type Row = string[];

export interface Table {
  title: string;
  head: Row;
  rows: Row[];
  /** Columns to right-align (numbers). */
  right?: number[];
}

/** Three significant figures, without exponent notation. */
export function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toFixed(3);
}
