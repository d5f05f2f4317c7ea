import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { quantile } from './util.js';

const AT_EXIT = fileURLToPath(new URL('../cpu-at-exit.cjs', import.meta.url));

/**
 * The environment of every Node process the CLI case starts, `next` and
 * `node -e 0` alike: this one's without NODE_EXTRA_CA_CERTS. Where it is set,
 * each Node start first reads and parses that certificate bundle (about 60 ms
 * on the machine that set it), which would hide what mdclaim itself costs in
 * every ratio to `node -e 0`.
 */
export const NODE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS'));

/** What one fresh process cost, read by itself at exit: CPU time (ms) and minor page faults (pages first touched). */
export interface CpuFigures {
  userMs: number;
  sysMs: number;
  pageFaults: number;
}

/** CPU and page faults of `node args` (medians of `runs`), `before` run ahead of each (to put the board back). */
export function cpuOf(args: string[], runs: number, before: () => void): CpuFigures {
  const rows: number[][] = [];
  for (let i = 0; i < runs; i++) {
    before();
    const r = spawnSync(process.execPath, ['--require', AT_EXIT, ...args], { env: NODE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const m = /cpu-at-exit=(\d+) (\d+) (\d+)/.exec(r.stderr.toString());
    if (r.status !== 0 || !m) throw new Error(`cli: node ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim()}`);
    rows.push(m.slice(1).map(Number));
  }
  const med = (k: number) => quantile(rows.map((r) => r[k]!), 0.5);
  return { userMs: med(0) / 1000, sysMs: med(1) / 1000, pageFaults: med(2) };
}
