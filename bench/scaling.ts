import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBoard } from 'mdclaim';
import { boardText, clock, progress, quantile, rotate, tempDir, toMs } from './util.js';

export interface ScalingConfig {
  sizes: number[];
  rounds: number;
  /** Claims timed per board per round, by position in `sizes` (at most half the board). */
  claims: number[];
  /** Reaps timed per board per round, by position in `sizes`. */
  reaps: number[];
}

export interface SizeFigures {
  tasks: number;
  /** Size of the claim board (first half already claimed) in KiB. */
  claimBoardKiB: number;
  /** Size of the reap board (every tenth task a stale claim) in KiB. */
  reapBoardKiB: number;
  claimP50Ms: number;
  claimP99Ms: number;
  claims: number;
  reapMedianMs: number;
  reapP90Ms: number;
  reaps: number;
  /** Stale claims each reap reverted. */
  reaped: number;
  claimUsPerKiB: number;
  reapUsPerKiB: number;
}

export interface ScalingResult {
  rounds: number;
  sizes: SizeFigures[];
  /** d log(time) / d log(bytes) between the two largest boards: 1 is linear. */
  claimSlope: number;
  reapSlope: number;
}

const STALE_EVERY = 10;

/** Time `count` claims on a board whose first half is claimed, so each claim reads past half the file and rewrites the rest. */
async function timeClaims(path: string, tasks: number, count: number): Promise<{ lat: number[]; kib: number }> {
  writeFileSync(path, boardText(tasks, { claimedFirst: Math.floor(tasks / 2) }));
  const kib = statSync(path).size / 1024;
  const board = openBoard(path);
  const lat: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = clock();
    const got = await board.next({ by: 'scale' });
    const t1 = clock();
    if (!got) throw new Error(`scaling: no task to claim on the ${tasks}-task board`);
    lat.push(toMs(t1 - t0));
  }
  return { lat, kib };
}

/** Time one reap of a board where every tenth task holds a claim two hours old. */
async function timeReap(path: string, tasks: number): Promise<{ ms: number; kib: number; reaped: number }> {
  writeFileSync(path, boardText(tasks, { staleEvery: STALE_EVERY }));
  const kib = statSync(path).size / 1024;
  const board = openBoard(path);
  const t0 = clock();
  const reaped = await board.reap({ ttl: '0s' });
  const t1 = clock();
  const want = Math.floor(tasks / STALE_EVERY);
  if (reaped.length !== want) throw new Error(`scaling: reap of the ${tasks}-task board reverted ${reaped.length}, expected ${want}`);
  return { ms: toMs(t1 - t0), kib, reaped: reaped.length };
}

const slope = (x0: number, y0: number, x1: number, y1: number) => Math.log(y1 / y0) / Math.log(x1 / x0);

/** Case 3: claim and reap cost as the board grows. */
export async function scaling(cfg: ScalingConfig): Promise<ScalingResult> {
  const dir = tempDir('s');
  const claimLat = new Map<number, number[]>(cfg.sizes.map((n) => [n, []]));
  const reapMs = new Map<number, number[]>(cfg.sizes.map((n) => [n, []]));
  const kib = new Map<number, { claim: number; reap: number; reaped: number }>();
  for (let r = 0; r < cfg.rounds; r++) {
    progress(`scaling: round ${r + 1}/${cfg.rounds} (${cfg.sizes.join(', ')} tasks)`);
    for (const n of rotate(cfg.sizes, r)) {
      const at = cfg.sizes.indexOf(n);
      const path = join(dir, `tasks-${n}.md`);
      const c = await timeClaims(path, n, Math.min(cfg.claims[at]!, Math.floor(n / 2)));
      claimLat.get(n)!.push(...c.lat);
      let last = { kib: 0, reaped: 0 };
      for (let i = 0; i < cfg.reaps[at]!; i++) {
        const rp = await timeReap(path, n);
        reapMs.get(n)!.push(rp.ms);
        last = rp;
      }
      kib.set(n, { claim: c.kib, reap: last.kib, reaped: last.reaped });
    }
  }
  const sizes = cfg.sizes.map((n): SizeFigures => {
    const lat = claimLat.get(n)!;
    const reaps = reapMs.get(n)!;
    const k = kib.get(n)!;
    const claimP50Ms = quantile(lat, 0.5);
    const reapMedianMs = quantile(reaps, 0.5);
    return {
      tasks: n,
      claimBoardKiB: k.claim,
      reapBoardKiB: k.reap,
      claimP50Ms,
      claimP99Ms: quantile(lat, 0.99),
      claims: lat.length,
      reapMedianMs,
      reapP90Ms: quantile(reaps, 0.9),
      reaps: reaps.length,
      reaped: k.reaped,
      claimUsPerKiB: (claimP50Ms * 1000) / k.claim,
      reapUsPerKiB: (reapMedianMs * 1000) / k.reap,
    };
  });
  const [a, b] = sizes.slice(-2);
  return {
    rounds: cfg.rounds,
    sizes,
    claimSlope: a && b ? slope(a.claimBoardKiB, a.claimP50Ms, b.claimBoardKiB, b.claimP50Ms) : NaN,
    reapSlope: a && b ? slope(a.reapBoardKiB, a.reapMedianMs, b.reapBoardKiB, b.reapMedianMs) : NaN,
  };
}
