import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Monotonic nanoseconds; the same clock in every process on the host, so workers' stamps compare. */
export const clock = (): bigint => process.hrtime.bigint();

export const toMs = (ns: bigint): number => Number(ns) / 1e6;
export const toUs = (ns: bigint): number => Number(ns) / 1e3;

/** Quantile by linear interpolation between order statistics. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export interface Spread {
  median: number;
  q25: number;
  q75: number;
  min: number;
  max: number;
  n: number;
}

export function spread(xs: readonly number[]): Spread {
  return {
    median: median(xs),
    q25: quantile(xs, 0.25),
    q75: quantile(xs, 0.75),
    min: Math.min(...xs),
    max: Math.max(...xs),
    n: xs.length,
  };
}

export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** The claim timestamp format boards use: RFC 3339 UTC to the second. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

export const CLAIMED = '🟡';

/** Claims per contended process counted as its start-up (loading, first compilation, starting its lock helper). */
export const WARM_CLAIMS = 20;

export interface BoardShape {
  /** The first this many tasks are already claimed, freshly, by `pre`. */
  claimedFirst?: number;
  /** Every this-many-th task carries a claim two hours old. */
  staleEvery?: number;
  /** Write tasks as ADW's bare lines (`[ ] task 1`), not list items (`- [ ] task 1`). */
  bare?: boolean;
}

/** A board of `n` open tasks `task 1` … `task n` under one heading (texts unique, so ids are too). */
export function boardText(n: number, shape: BoardShape = {}): string {
  const fresh = `[${CLAIMED}, pre, ${stamp(Date.now())}]`;
  const stale = `[${CLAIMED}, gone, ${stamp(Date.now() - 2 * 3_600_000)}]`;
  const lines = ['# Tasks', ''];
  for (let i = 1; i <= n; i++) {
    let marker = '[ ]';
    if (shape.claimedFirst !== undefined && i <= shape.claimedFirst) marker = fresh;
    else if (shape.staleEvery !== undefined && i % shape.staleEvery === 0) marker = stale;
    lines.push(`${shape.bare ? '' : '- '}${marker} task ${i}`);
  }
  return lines.join('\n') + '\n';
}

const made: string[] = [];

/** A fresh directory under the OS temp dir (same disk as the project here), removed at exit. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `mdclaim-bench-${label}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Rotate a list by `k`: round r starts at a different case so none always runs right after the same peer. */
export function rotate<T>(xs: readonly T[], k: number): T[] {
  const n = xs.length;
  return xs.map((_, i) => xs[(i + k) % n]!);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
