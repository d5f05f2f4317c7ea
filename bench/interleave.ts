import { claimOnce, type Claimer } from './claimers.js';
import { clock, progress, quantile, rotate, spread, toUs, type Spread } from './util.js';

export interface ClaimerFigures {
  /** Claims per second, one figure per measured round. */
  claimsPerSec: Spread;
  /** Per-claim latency in microseconds, pooled over the measured rounds. */
  p50Us: number;
  p99Us: number;
}

export interface Ratio {
  /** `a / b` of claims per second, taken within each round and summarised over rounds. */
  a: string;
  b: string;
  ratio: Spread;
}

export interface InterleavedResult {
  tasks: number;
  rounds: number;
  warmup: number;
  claimers: Record<string, ClaimerFigures>;
  ratios: Ratio[];
}

/** Drain a freshly filled board claim by claim; per-claim latencies in µs. Throws if it drains early or late. */
async function drain(c: Claimer, tasks: number): Promise<number[]> {
  await c.fill();
  const lat: number[] = [];
  for (let i = 0; i < tasks; i++) {
    const t0 = clock();
    const got = await claimOnce(c, 'bench');
    const t1 = clock();
    if (got === null) throw new Error(`${c.name}: the board ran dry after ${i} of ${tasks} claims`);
    lat.push(toUs(t1 - t0));
  }
  if ((await claimOnce(c, 'bench')) !== null) throw new Error(`${c.name}: claimed more than the ${tasks} tasks on the board`);
  return lat;
}

/** Round-robin, one board per claimer per round: a noisy neighbour slows a round's peers alike, so in-round ratios hold. */
export async function interleaved(
  label: string, claimers: Claimer[], tasks: number, rounds: number, warmup: number, pairs: Array<[string, string]>,
): Promise<InterleavedResult> {
  const rates = new Map<string, number[]>(claimers.map((c) => [c.name, []]));
  const lats = new Map<string, number[]>(claimers.map((c) => [c.name, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    if (r % 5 === 0 || r === warmup + rounds - 1) progress(`${label}: round ${r + 1}/${warmup + rounds}${r < warmup ? ' (warm-up)' : ''}`);
    for (const c of rotate(claimers, r)) {
      const lat = await drain(c, tasks);
      if (r < warmup) continue;
      rates.get(c.name)!.push(tasks / (lat.reduce((s, x) => s + x, 0) / 1e6));
      lats.get(c.name)!.push(...lat);
    }
  }
  const figures: Record<string, ClaimerFigures> = {};
  for (const c of claimers) {
    const lat = lats.get(c.name)!;
    figures[c.name] = { claimsPerSec: spread(rates.get(c.name)!), p50Us: quantile(lat, 0.5), p99Us: quantile(lat, 0.99) };
  }
  const ratios = pairs.map(([a, b]) => {
    const ra = rates.get(a)!;
    const rb = rates.get(b)!;
    return { a, b, ratio: spread(ra.map((x, i) => x / rb[i]!)) };
  });
  return { tasks, rounds, warmup, claimers: figures, ratios };
}
