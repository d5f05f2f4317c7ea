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
  /** The same boards written as ADW's bare lines, timed in the same rounds. */
  bare: { claimBoardKiB: number; claimP50Ms: number; claimP99Ms: number; reapMedianMs: number };
  /** Bare over list, claim p50 and reap median. */
  bareOverList: { claim: number; reap: number };
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
async function timeClaims(path: string, tasks: number, count: number, bare: boolean): Promise<{ lat: number[]; kib: number }> {
  writeFileSync(path, boardText(tasks, { claimedFirst: Math.floor(tasks / 2), bare }));
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
async function timeReap(path: string, tasks: number, bare: boolean): Promise<{ ms: number; kib: number; reaped: number }> {
  writeFileSync(path, boardText(tasks, { staleEvery: STALE_EVERY, bare }));
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
  // Keyed by size and shape: `${n}` list items, `${n} bare` bare lines.
  const claimLat = new Map<string, number[]>();
  const reapMs = new Map<string, number[]>();
  const kib = new Map<string, { claim: number; reap: number; reaped: number }>();
  const push = (m: Map<string, number[]>, k: string, xs: number[]) => m.set(k, [...(m.get(k) ?? []), ...xs]);
  for (let r = 0; r < cfg.rounds; r++) {
    progress(`scaling: round ${r + 1}/${cfg.rounds} (${cfg.sizes.join(', ')} tasks, list items and bare lines)`);
    for (const n of rotate(cfg.sizes, r)) {
      const at = cfg.sizes.indexOf(n);
      // Both shapes of a size one after the other, which goes first alternating by round.
      for (const bare of r % 2 === 0 ? [false, true] : [true, false]) {
        const key = `${n}${bare ? ' bare' : ''}`;
        const path = join(dir, `tasks-${n}${bare ? '-bare' : ''}.md`);
        const c = await timeClaims(path, n, Math.min(cfg.claims[at]!, Math.floor(n / 2)), bare);
        push(claimLat, key, c.lat);
        let last = { kib: 0, reaped: 0 };
        for (let i = 0; i < cfg.reaps[at]!; i++) {
          const rp = await timeReap(path, n, bare);
          push(reapMs, key, [rp.ms]);
          last = rp;
        }
        kib.set(key, { claim: c.kib, reap: last.kib, reaped: last.reaped });
      }
    }
  }
  const sizes = cfg.sizes.map((n): SizeFigures => {
    const lat = claimLat.get(`${n}`)!;
    const reaps = reapMs.get(`${n}`) ?? [];
    const k = kib.get(`${n}`)!;
    const bareLat = claimLat.get(`${n} bare`)!;
    const bareReap = quantile(reapMs.get(`${n} bare`) ?? [], 0.5);
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
      bare: { claimBoardKiB: kib.get(`${n} bare`)!.claim, claimP50Ms: quantile(bareLat, 0.5), claimP99Ms: quantile(bareLat, 0.99), reapMedianMs: bareReap },
      bareOverList: { claim: quantile(bareLat, 0.5) / claimP50Ms, reap: bareReap / reapMedianMs },
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
