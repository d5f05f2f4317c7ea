import { readFileSync } from 'node:fs';
import { WARM_CLAIMS } from './util.js';
import type { WorkerReport } from './worker.js';

// Where a claim's time goes, as CPU: on a shared machine wall-clock rates drift by tens of
// percent from run to run, CPU spent per claim much less.

export interface ClaimCpu {
  /** The claimer processes' CPU per claim over the whole drain, µs (user, system, both). */
  userUs: number;
  systemUs: number;
  totalUs: number;
  /** Per claim over each process's first WARM_CLAIMS claims, and over the rest: what a fresh process pays once (absent where not measured). */
  firstUs?: number;
  restUs?: number;
}

/** CPU per claim of one run's workers. */
export function claimCpu(reports: readonly WorkerReport[]): ClaimCpu {
  const claims = reports.reduce((s, r) => s + r.claims, 0);
  const user = reports.reduce((s, r) => s + r.cpuUs.user, 0);
  const system = reports.reduce((s, r) => s + r.cpuUs.system, 0);
  const warmed = reports.filter((r) => r.firstCpuUs !== null);
  const first = warmed.reduce((s, r) => s + r.firstCpuUs!.user + r.firstCpuUs!.system, 0);
  const rest = warmed.reduce((s, r) => s + r.cpuUs.user + r.cpuUs.system, 0) - first;
  const restClaims = warmed.reduce((s, r) => s + r.claims, 0) - warmed.length * WARM_CLAIMS;
  return {
    userUs: user / claims,
    systemUs: system / claims,
    totalUs: (user + system) / claims,
    ...(warmed.length === 0 ? {} : { firstUs: first / (warmed.length * WARM_CLAIMS) }),
    ...(restClaims > 0 ? { restUs: rest / restClaims } : {}),
  };
}

/** The median of each figure over several runs. */
export function medianCpu(runs: readonly ClaimCpu[]): ClaimCpu {
  const med = (xs: Array<number | undefined>): number | undefined => {
    const s = xs.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    return s.length === 0 ? undefined : s[Math.floor((s.length - 1) / 2)]! / 2 + s[Math.ceil((s.length - 1) / 2)]! / 2;
  };
  const first = med(runs.map((r) => r.firstUs));
  const rest = med(runs.map((r) => r.restUs));
  return {
    userUs: med(runs.map((r) => r.userUs))!,
    systemUs: med(runs.map((r) => r.systemUs))!,
    totalUs: med(runs.map((r) => r.totalUs))!,
    ...(first === undefined ? {} : { firstUs: first }),
    ...(rest === undefined ? {} : { restUs: rest }),
  };
}

/**
 * User + system CPU of PostgreSQL server process `pid` so far, µs, from /proc (Linux); null where
 * there is none, it is gone, or the process of that number here is no server's (the server runs
 * on another host).
 */
export function serverCpuUs(pid: number): number | null {
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') return null;
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks.
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / TICKS;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const TICKS = 100;
