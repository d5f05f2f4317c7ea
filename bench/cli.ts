import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuOf, NODE_ENV, type CpuFigures } from './cli-cpu.js';
import { boardText, clock, progress, quantile, spread, tempDir, toMs, type Spread } from './util.js';

// What `mdclaim` runs: the bin, which keeps V8's compiled code of the bundle between calls.
const CLI = fileURLToPath(new URL('../../bin/mdclaim.cjs', import.meta.url));
/** Preloaded for the FFI path: fs-ext does not load, so the CLI takes flock through koffi. */
const NO_FS_EXT = fileURLToPath(new URL('../no-fs-ext.cjs', import.meta.url));
const RSS_WRAPPER = fileURLToPath(new URL('./rss.js', import.meta.url));
const TIME = '/usr/bin/time';

export interface CliConfig {
  pairs: number;
  /** Tasks on the board whose peak RSS is measured (first half claimed, as in the scaling case). */
  rssTasks: number;
  rssRuns: number;
  /** Boards (first half claimed) on which a fresh `next` is timed against `node -e 0`, and pairs per board. */
  bigSizes: number[];
  bigPairs: number;
}

export interface BigBoardFigures {
  tasks: number;
  /** List items (`- [ ] task`) or ADW's bare lines (`[ ] task`). */
  shape: 'list' | 'bare';
  boardKiB: number;
  nextMs: Spread;
  bareNodeMs: Spread;
  /** `next` wall time over `node -e 0` wall time, pair by pair. */
  ratio: Spread;
  /** CPU time and page faults of the same `next` and of `node -e 0`, each as it read them at exit (medians). */
  nextCpu: CpuFigures;
  bareCpu: CpuFigures;
}

export interface CliResult {
  pairs: number;
  nextMs: Spread;
  bareNodeMs: Spread;
  /** `next` wall time over `node -e 0` wall time, pair by pair. */
  ratio: Spread;
  /** The same `next` where fs-ext is not built, so its flock comes through koffi (loaded at the lock), and its ratio to `node -e 0`. */
  ffiNextMs: Spread;
  ffiRatio: Spread;
  rssTasks: number;
  rssBoardKiB: number;
  nextPeakRssMiB: number;
  bareNodePeakRssMiB: number;
  rssMethod: 'usr-bin-time' | 'resource-usage';
  /** A fresh `next` on big boards whose first half is claimed. */
  big: BigBoardFigures[];
  /** Was NODE_EXTRA_CA_CERTS set where the bench ran? Every process this case starts runs without it (NODE_ENV), `next` and `node -e 0` alike. */
  extraCaCerts: boolean;
}

function timed(args: string[], expect: number): number {
  const t0 = clock();
  const r = spawnSync(process.execPath, args, { env: NODE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const t1 = clock();
  if (r.status !== expect) throw new Error(`cli: node ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim()}`);
  return toMs(t1 - t0);
}

/** Peak resident set of one run in MiB: GNU time's %M where it exists, else the child's own getrusage. */
function peakRss(args: string[]): { mib: number; method: CliResult['rssMethod'] } {
  if (existsSync(TIME)) {
    const r = spawnSync(TIME, ['-f', '%M', process.execPath, ...args], { env: NODE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const last = r.stderr.toString().trim().split('\n').pop() ?? '';
    if (r.status === 0 && /^\d+$/.test(last)) return { mib: Number(last) / 1024, method: 'usr-bin-time' };
  }
  const r = spawnSync(process.execPath, [RSS_WRAPPER, ...args], { env: NODE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const m = /maxrss=(\d+)/.exec(r.stderr.toString());
  if (!m) throw new Error(`cli: could not read the peak RSS of node ${args.join(' ')}`);
  return { mib: Number(m[1]) / 1024, method: 'resource-usage' };
}

/** Pairs of a fresh `next` on a board of `tasks` (first half claimed, rewritten before each) and `node -e 0`, alternating which goes first. */
function bigBoard(dir: string, tasks: number, pairs: number, shape: BigBoardFigures['shape']): BigBoardFigures {
  const path = join(dir, `big-${tasks}-${shape}.md`);
  const args = [CLI, 'next', '--file', path, '--by', 'cli'];
  const next: number[] = [];
  const bare: number[] = [];
  let kib = 0;
  for (let i = 0; i < pairs; i++) {
    if (i % 10 === 0) progress(`cli: ${tasks.toLocaleString('en-US')}-task board of ${shape === 'bare' ? 'bare lines' : 'list items'}, pair ${i + 1}/${pairs}`);
    const text = boardText(tasks, { claimedFirst: Math.floor(tasks / 2), bare: shape === 'bare' });
    writeFileSync(path, text);
    kib = Buffer.byteLength(text) / 1024;
    if (i % 2 === 0) {
      next.push(timed(args, 0));
      bare.push(timed(['-e', '0'], 0));
    } else {
      bare.push(timed(['-e', '0'], 0));
      next.push(timed(args, 0));
    }
  }
  const rewrite = () => writeFileSync(path, boardText(tasks, { claimedFirst: Math.floor(tasks / 2), bare: shape === 'bare' }));
  const runs = Math.max(5, Math.min(pairs, 15));
  const nextCpu = cpuOf(args.slice(), runs, rewrite);
  const bareCpu = cpuOf(['-e', '0'], runs, () => {});
  return { tasks, shape, boardKiB: kib, nextMs: spread(next), bareNodeMs: spread(bare), ratio: spread(next.map((x, i) => x / bare[i]!)), nextCpu, bareCpu };
}

/** Case 4: what a shell script pays per `mdclaim next`, on a small board and on big ones, and how much memory one takes on a big board. */
export function cli(cfg: CliConfig): CliResult {
  const dir = tempDir('cli');
  const board = join(dir, 'tasks.md');
  const size = 50;
  let left = 0;
  const nextArgs = [CLI, 'next', '--file', board, '--by', 'cli'];
  const bareArgs = ['-e', '0'];
  const ffiArgs = ['--require', NO_FS_EXT, ...nextArgs];
  const next: number[] = [];
  const ffi: number[] = [];
  const bare: number[] = [];
  // One untimed run of each first, so the page cache holds node, the compiled CLI and koffi.
  writeFileSync(board, boardText(size));
  timed(nextArgs, 0);
  timed(ffiArgs, 0);
  timed(bareArgs, 0);
  left = size - 2;
  for (let i = 0; i < cfg.pairs; i++) {
    if (i % 10 === 0) progress(`cli: pair ${i + 1}/${cfg.pairs}`);
    if (left < 2) {
      writeFileSync(board, boardText(size));
      left = size;
    }
    // Rotate which goes first, so none always runs right after the same other.
    const runs = [() => next.push(timed(nextArgs, 0)), () => ffi.push(timed(ffiArgs, 0)), () => bare.push(timed(bareArgs, 0))];
    for (let j = 0; j < runs.length; j++) runs[(i + j) % runs.length]!();
    left -= 2;
  }
  progress(`cli: peak RSS of next on a ${cfg.rssTasks}-task board`);
  const big = join(dir, 'big.md');
  const rss: number[] = [];
  const bareRss: number[] = [];
  let method: CliResult['rssMethod'] = 'usr-bin-time';
  let kib = 0;
  for (let i = 0; i < cfg.rssRuns; i++) {
    const text = boardText(cfg.rssTasks, { claimedFirst: Math.floor(cfg.rssTasks / 2) });
    writeFileSync(big, text);
    kib = Buffer.byteLength(text) / 1024;
    const r = peakRss([CLI, 'next', '--file', big, '--by', 'rss']);
    rss.push(r.mib);
    method = r.method;
    bareRss.push(peakRss(bareArgs).mib);
  }
  const bigBoards = cfg.bigSizes.flatMap((n) => [bigBoard(dir, n, cfg.bigPairs, 'list'), bigBoard(dir, n, cfg.bigPairs, 'bare')]);
  return {
    pairs: cfg.pairs,
    nextMs: spread(next),
    bareNodeMs: spread(bare),
    ratio: spread(next.map((x, i) => x / bare[i]!)),
    ffiNextMs: spread(ffi),
    ffiRatio: spread(ffi.map((x, i) => x / bare[i]!)),
    rssTasks: cfg.rssTasks,
    rssBoardKiB: kib,
    nextPeakRssMiB: quantile(rss, 0.5),
    bareNodePeakRssMiB: quantile(bareRss, 0.5),
    rssMethod: method,
    extraCaCerts: Boolean(process.env.NODE_EXTRA_CA_CERTS),
    big: bigBoards,
  };
}
