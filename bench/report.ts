import type { ContendedResult } from './contended.js';
import type { BigBoardFigures, CliResult } from './cli.js';
import type { CpuFigures } from './cli-cpu.js';
import type { InterleavedResult } from './interleave.js';
import type { PostgresResult } from './postgres.js';
import { contendedTimeTables, contendedWhy, postgresTimeTables, postgresWhy, warmedWhy } from './report-time.js';
import { num, type Row, type Table } from './table.js';
import type { ScalingResult } from './scaling.js';
import type { StartResult } from './start.js';
import { WARM_CLAIMS, type Spread } from './util.js';
import type { WriteResult } from './write.js';

export interface Results {
  uncontended?: InterleavedResult;
  contended?: ContendedResult;
  /** The same with more processes (32 in a full run, 4 in a quick one). */
  contendedMany?: ContendedResult;
  /** The file board and the floor with 16 fresh processes (full runs only). */
  contended16?: ContendedResult;
  /** The file board and the floor in long-lived processes, each warmed first on a board of its own: alone, and 8 at once (2 at once only in a quick run). */
  contendedWarm?: ContendedResult[];
  scaling?: ScalingResult;
  cli?: CliResult;
  write?: WriteResult;
  start?: StartResult;
  postgres?: PostgresResult;
}

/** Why a target is missed, from `node --cpu-prof` of the claim and reap paths (docs/benchmarks.md has the long form). */
const WHY_MISSED: Record<string, string> = {
  '7a': "a claim does more than take a row, on both sides, by measurement (CPU per claim, one process, warm, in a loop of the board's own statement): on the server about 380 µs (520 before schema 7) against the plain claimer's 90–130, where an UPDATE of the same row on the same table alone costs about 185 µs; the rest is the statement around it: the history row written with it, the second candidate (a lapsed claim), the returned task's id and line, and the set-up of its plan at every execution (38 nodes, 72 before; with the table's CHECK constraints, read anew at every execution, about a quarter of the backend's time in perf); in the client about 350 µs against 220 (a pool, a request token, the Task built from its row, one JSON value parsed where the plain claimer's row is one integer)",
  '7c': "the same CPU per claim as 7b: with 8 processes queued on 2 cores, a claim's tail is the wait for a core behind the others' claims",
  '7h': "graphile-worker's claim takes a job's few columns in one statement of its own, without a line, an id rule or a history row; mdclaim's costs are those of 7a",
  '1a': "about 12 syscalls a claim (flock, a stat that the lock's descriptor still names the directory, unlock; open, fstat, read and close of the board; stat and pread to check it is still what was read; pwrite; pread read-back; and an lstat of the path at a board object's first operation) against the floor's 4, and about as much JS (the check that the changed line reads as meant, the returned task with its id and times); SQLite's prepared UPDATE is one call into C",
  '1b': "fdatasync is most of both; mdclaim adds the syscalls and JS of 1a",
  '2a': "the wait's second wake-up and the claim's code, both measured by experiment: the same drain with each wait a blocking flock on the main thread (not shippable: it stops the event loop and cannot keep the lock timeout) ran about 1.4× as fast, and with every process warmed by 1,000 claims first about 1.15×; a wait goes through the process's helper, which takes the lock and then wakes us over a pipe (about 250 µs of each handover under this load), and a claim under the lock costs about 1.1 ms of CPU in a process that makes only ~125 claims, against 0.5–0.7 ms warm",
  '2c': 'see the failed drain checks on stderr',
  '2d': "the worst claims are each process's first two (60–125 ms for the first in four runs here): a process's first claim loads fs-ext (3 ms) and, contended, node:child_process (3.4 ms), spawns its helper (3.9 ms) and compiles the claim path (about 7 ms), eight processes at once on 2 cores; past each process's first 20 claims the worst is 18–48 ms across the full runs on two machines (the floor's 14–48 ms)",
  '3g': "a bare ADW section is one paragraph, and a claim must know it ends as one, not as a setext heading: it compares the board with the one it read last (natively, about 0.1 ms over 3 MB) and matches again only the lines that changed between, but a process's first claim, or one after a line above the paragraph changed length, matches it to its end (about 1–2.4 ms over 3 MB); the rest of a claim, the rewrite, is the same for both shapes and as noisy",
  '7d': "the p50 claim is the same on both boards (see the table); the rates differ in the tail, and the ratio's rounds ranged 0.81–1.24 in the latest full run",
  '3a': 'a claim lengthens its line, so past one page it rewrites the board by temp file + rename (330 KiB here): the rename and the close that frees the old file\'s blocks cost more than the scan',
  '3e': 'as 3a: the rewrite by temp file + rename costs more than the scan, which passes over the claimed bare lines as it does over list items (3g)',
  '3f': 'as 3b: the 3 MiB rewrite and its garbage; the scan passes over the claimed bare lines as it does over list items (3g)',
  '3b': 'the 3 MiB rewrite: read 1.4 ms, write 0.8 ms, rename and freeing the old file 4.3 ms, and garbage collection of the three 3 MiB copies a claim makes (read buffer, its string, the new file); the scan is about 3.4 ms',
  '3c': '1,000 edits: the rewrite and the check that each changed line reads as meant; the walk itself is about 3 ms',
  '3d': 'garbage collection and the file system grow with the board',
  '4a': "fs-ext's native addon and the bundle's compilation (the bin keeps V8's code cache); node:crypto no longer loads on the claim path",
  '4b': 'the board is held three times: the bytes read, their latin1 string, and the new file',
  '4c': "by instruction count (callgrind, one thread, fixed seeds) node -e 0 is about 93 million instructions and a fresh next on 10,000 tasks 139.4 (155 before the CLI stopped loading node:module, node:os, the PostgreSQL board's code and every command's module it does not run); of what it adds, loading the bundle and deserializing its code cache about 9 million, the lazily compiled parts of Node's own fs, module loader and buffer it calls about 13, the scan's regular expressions 8; the rest of its cost is memory first touched (about 1,100 pages); it starts no thread node -e 0 does not (the replaced board is closed on libuv's thread pool only by a process that keeps the board past the turn) and arms no timer",
  '4e': "the same as at 10,000 tasks, with a fifth of the board to scan and rewrite",
};

const cpuMs = (c: CpuFigures) => c.userMs + c.sysMs;

/** This run's CPU and page faults of a fresh `next` against `node -e 0`'s: how much of the gap is work, and how much memory first touched. */
function cliWhy(b: BigBoardFigures): string {
  const f = (c: CpuFigures) => `${num(cpuMs(c))} ms of CPU (user ${num(c.userMs)}, system ${num(c.sysMs)}) and ${num(c.pageFaults)} page faults`;
  return `this run, read by each process at exit: next ${f(b.nextCpu)}, node -e 0 ${f(b.bareCpu)} (${(cpuMs(b.nextCpu) / cpuMs(b.bareCpu)).toFixed(2)}× the CPU)`;
}

export interface Target {
  id: string;
  what: string;
  goal: string;
  /** The measured figure, or null when the case (or the board size) was not run. */
  value: number | null;
  shown: string;
  met: boolean | null;
  /** One line on why, when missed. */
  why?: string;
}

const times = (s: Spread) => `${s.median.toFixed(2)}× (IQR ${s.q25.toFixed(2)}–${s.q75.toFixed(2)})`;

function ratioOf(r: { ratios: Array<{ a: string; b: string; ratio: Spread }> } | undefined, a: string, b: string): number | null {
  return r?.ratios.find((x) => x.a === a && x.b === b)?.ratio.median ?? null;
}

function sizeOf(s: ScalingResult | undefined, n: number) {
  return s?.sizes.find((x) => x.tasks === n);
}

/** `why`: the reason a miss is given from this run's own figures, before WHY_MISSED's standing one. */
function target(id: string, what: string, goal: string, value: number | null, ok: (v: number) => boolean, unit: string, why?: string): Target {
  const met = value === null ? null : ok(value);
  // This run's figures first, then what earlier measurement found behind them.
  return { id, what, goal, value, shown: value === null ? 'not run' : `${num(value)}${unit}`, met, ...(met === false ? { why: [why, WHY_MISSED[id]].filter(Boolean).join('; ') } : {}) };
}

/** Lost, doubled and misattributed claims plus failed checks, over every contended run. */
function contendedFaults(c: ContendedResult): number {
  const checks = Object.values(c.claimers).flatMap((f) => f!.checks);
  return checks.reduce((n, k) => n + k.lost + k.duplicates + k.wrongHolder + (k.ok ? 0 : 1), 0);
}

export function targets(r: Results): Target[] {
  const c = r.contended;
  // The long-lived contending run: the most processes of the warmed runs.
  const w = r.contendedWarm?.filter((x) => x.workers > 1).at(-1);
  const s = r.scaling;
  const s10k = sizeOf(s, 10_000);
  const s100k = sizeOf(s, 100_000);
  const slope = s && s.sizes.at(-1)?.tasks === 100_000 ? Math.max(s.claimSlope, s.reapSlope) : null;
  const rss = r.cli && r.cli.rssTasks === 100_000 ? r.cli.nextPeakRssMiB : null;
  const big10k = r.cli?.big.find((b) => b.tasks === 10_000 && b.shape === 'list');
  const big2k = r.cli?.big.find((b) => b.tasks === 2_000 && b.shape === 'list');
  return [
    target('1a', 'uncontended, durability off: mdclaim / SQLite NORMAL', '≥ 0.8×', ratioOf(r.uncontended, 'mdclaim', 'sqlite-normal'), (v) => v >= 0.8, '×'),
    target('1b', 'uncontended, durability on: mdclaim / SQLite FULL', '≥ 1×', ratioOf(r.uncontended, 'mdclaim-durable', 'sqlite-full'), (v) => v >= 1, '×'),
    target('2a', 'contended aggregate: mdclaim / the floor claimer', '≥ 0.8×', c ? ratioOf(c, 'mdclaim', 'floor') : null, (v) => v >= 0.8, '×', contendedWhy(c)),
    target('2b', 'contended claim p99: mdclaim / the floor claimer', '≤ 1.5×', c?.claimers.floor ? c.claimers.mdclaim.p99Ms / c.claimers.floor.p99Ms : null, (v) => v <= 1.5, '×', contendedWhy(c)),
    target('2c', 'contended: lost or doubled claims, failed drain checks (all claimers, all runs)', '0', c ? [r.contendedMany, r.contended16, ...(r.contendedWarm ?? [])].reduce((n, x) => n + (x ? contendedFaults(x) : 0), contendedFaults(c)) : null, (v) => v === 0, ''),
    target('2d', 'contended worst wait, the longest claim: mdclaim / the floor claimer', '≤ 2×', c?.claimers.floor ? c.claimers.mdclaim.worstMs / c.claimers.floor.worstMs : null, (v) => v <= 2, '×', contendedWhy(c)),
    target('2e', 'contended aggregate, fs-ext not built: mdclaim through koffi / the floor claimer', '≥ 0.5×', c ? ratioOf(c, 'mdclaim-koffi', 'floor') : null, (v) => v >= 0.5, '×', contendedWhy(c, 'mdclaim-koffi')),
    target('2f', 'contended aggregate, long-lived processes: mdclaim / the floor claimer', '≥ 0.8×', w ? ratioOf(w, 'mdclaim', 'floor') : null, (v) => v >= 0.8, '×', contendedWhy(w)),
    target('2g', 'contended claim p99, long-lived processes: mdclaim / the floor claimer', '≤ 1.5×', w?.claimers.floor ? w.claimers.mdclaim.p99Ms / w.claimers.floor.p99Ms : null, (v) => v <= 1.5, '×', contendedWhy(w)),
    target('2h', 'contended worst wait, long-lived processes: mdclaim / the floor claimer', '≤ 2×', w?.claimers.floor ? w.claimers.mdclaim.worstMs / w.claimers.floor.worstMs : null, (v) => v <= 2, '×', contendedWhy(w)),
    target('3a', 'claim p50 at 10,000 tasks, first half claimed', '≤ 1.5 ms', s10k?.claimP50Ms ?? null, (v) => v <= 1.5, ' ms'),
    target('3b', 'claim p50 at 100,000 tasks, first half claimed', '≤ 15 ms', s100k?.claimP50Ms ?? null, (v) => v <= 15, ' ms'),
    target('3c', 'reap at 10,000 tasks (1,000 stale)', '≤ 20 ms', s10k?.reapMedianMs ?? null, (v) => v <= 20, ' ms'),
    target('3d', 'growth 10k→100k, worst of claim and reap (log-log slope; 1 = linear)', '≤ 1.2', slope, (v) => v <= 1.2, ''),
    target('3e', 'claim p50 at 10,000 tasks, first half claimed, bare ADW lines', '≤ 1.5 ms', s10k?.bare.claimP50Ms ?? null, (v) => v <= 1.5, ' ms'),
    target('3f', 'claim p50 at 100,000 tasks, first half claimed, bare ADW lines', '≤ 15 ms', s100k?.bare.claimP50Ms ?? null, (v) => v <= 15, ' ms'),
    target('3g', 'claim p50 at 100,000 tasks: bare lines / list items, same run', '≤ 1.5×', s100k?.bareOverList.claim ?? null, (v) => v <= 1.5, '×'),
    target('4a', 'CLI `next` / bare `node -e 0` wall time, 50-task board', '≤ 1.6×', r.cli?.ratio.median ?? null, (v) => v <= 1.6, '×'),
    target('4b', 'CLI `next` peak RSS at 100,000 tasks', '≤ 100 MB', rss === null ? null : rss * 1.048576, (v) => v <= 100, ' MB'),
    target('4c', 'fresh CLI `next` at 10,000 tasks (first half claimed) / bare `node -e 0`, both without NODE_EXTRA_CA_CERTS', '≤ 1.6×', big10k?.ratio.median ?? null, (v) => v <= 1.6, '×', big10k && cliWhy(big10k)),
    target('4d', 'CLI `next` through koffi (fs-ext not built) / bare `node -e 0`, 50-task board', '≤ 1.6×', r.cli?.ffiRatio.median ?? null, (v) => v <= 1.6, '×'),
    target('4e', 'fresh CLI `next` at 2,000 tasks (first half claimed) / bare `node -e 0`, both without NODE_EXTRA_CA_CERTS', '≤ 1.6×', big2k?.ratio.median ?? null, (v) => v <= 1.6, '×', big2k && cliWhy(big2k)),
    ...postgresTargets(r.postgres),
  ];
}

/** The PostgreSQL board against the plain claimer and graphile-worker: only at the full run's sizes, else not run. */
function postgresTargets(p: PostgresResult | undefined): Target[] {
  const at = (procs: number) => p?.points.find((x) => x.procs === procs && x.tasks === 1_000 && x.claims === 1_000);
  const vs = (procs: number, b: string) => ratioOf(at(procs), 'mdclaim-pg', b);
  const p8 = at(8);
  const big = p && p.bigOverSmall.tasks[0] === 10_000 && p.bigOverSmall.tasks[1] === 1_000 ? p.bigOverSmall.ratio.median : null;
  const many = p && p.manyOverFew.procs[0] === 32 && p.manyOverFew.procs[1] === 8 ? p.manyOverFew.ratio.median : null;
  const eight = p?.overOne.find((x) => x.kind === 'mdclaim-pg' && x.procs === 8)?.ratio.median ?? null;
  return [
    target('7a', 'PostgreSQL, 1 process: mdclaim-pg / plain SKIP LOCKED claimer', '≥ 0.5×', vs(1, 'skip-locked'), (v) => v >= 0.5, '×', postgresWhy(p, 1)),
    target('7b', 'PostgreSQL, 8 processes: mdclaim-pg / plain SKIP LOCKED claimer', '≥ 0.5×', vs(8, 'skip-locked'), (v) => v >= 0.5, '×', postgresWhy(p, 8)),
    target('7c', 'PostgreSQL, 8 processes: claim p99, mdclaim-pg / plain SKIP LOCKED claimer', '≤ 2×', p8 ? p8.claimers['mdclaim-pg'].p99Ms / p8.claimers['skip-locked'].p99Ms : null, (v) => v <= 2, '×', postgresWhy(p, 8)),
    target('7d', 'PostgreSQL, 1 process: mdclaim-pg on 10,000 tasks / on 1,000', '≥ 0.9×', big, (v) => v >= 0.9, '×'),
    target('7e', 'PostgreSQL, 1,000 tasks: mdclaim-pg with 32 processes / with 8', '≥ 1×', many, (v) => v >= 1, '×', postgresWhy(p, 32)),
    target('7f', 'PostgreSQL `next` p50, 20,000 tasks, half claimed by others', '≤ 2 ms', p?.halfClaimed.tasks === 20_000 ? p.halfClaimed.p50Ms : null, (v) => v <= 2, ' ms'),
    target('7g', 'PostgreSQL `next` p50 below 4,950 blocked `[⏰]` tasks', '≤ 2 ms', p?.blockedAbove.blocked === 4_950 ? p.blockedAbove.p50Ms : null, (v) => v <= 2, ' ms'),
    target('7h', 'PostgreSQL, 1 process: mdclaim-pg / graphile-worker', '≥ 1×', vs(1, 'graphile-worker'), (v) => v >= 1, '×', postgresWhy(p, 1)),
    target('7i', 'PostgreSQL, 8 processes: mdclaim-pg / graphile-worker', '≥ 1×', vs(8, 'graphile-worker'), (v) => v >= 1, '×', postgresWhy(p, 8)),
    target('7j', 'PostgreSQL, 1,000 tasks: mdclaim-pg with 8 processes / with 1', '≥ 1×', eight, (v) => v >= 1, '×', warmedWhy(p) ?? postgresWhy(p, 8)),
  ];
}

/**
 * The file board, SQLite and the PostgreSQL board side by side, from this
 * run's tables (the comparison in docs/postgres-guide.md); null unless the run raced PostgreSQL
 * in the uncontended and both contended cases.
 */
export function storageTable(r: Results): Table | null {
  const u = r.uncontended;
  const runs = [r.contended, r.contendedMany];
  if (!u?.claimers['postgres'] || runs.some((c) => !c?.claimers.postgres)) return null;
  const one = (names: string[]) => names.map((n) => num(u.claimers[n]!.claimsPerSec.median));
  const many = (c: ContendedResult) =>
    (['mdclaim', 'sqlite', 'postgres'] as const).map((k) => `${num(c.claimers[k]!.claimsPerSec.median)}, ${num(c.claimers[k]!.p99Ms)} ms`);
  return {
    title: 'The file board beside SQLite and PostgreSQL',
    head: ['case', 'file board', 'SQLite', 'PostgreSQL'],
    rows: [
      ['one process, durability off (PostgreSQL `synchronous_commit=off`): claims/s', ...one(['mdclaim', 'sqlite-normal', 'postgres'])],
      ['one process, durability on: claims/s', ...one(['mdclaim-durable', 'sqlite-full', 'postgres-durable'])],
      ...runs.map((c) => [`${c!.workers} processes on one ${num(c!.tasks)}-task board: claims/s, p99`, ...many(c!)]),
    ],
    right: [1, 2, 3],
  };
}

export function tables(r: Results): Table[] {
  const out: Table[] = [];
  const u = r.uncontended;
  if (u) {
    out.push({
      title: `1. Uncontended claims, in process, ${u.tasks}-task board drained per round, ${u.rounds} rounds`,
      head: ['claimer', 'claims/s (median)', 'IQR', 'p50 µs', 'p99 µs'],
      rows: Object.entries(u.claimers).map(([k, v]) => [k, num(v.claimsPerSec.median), `${num(v.claimsPerSec.q25)}–${num(v.claimsPerSec.q75)}`, num(v.p50Us), num(v.p99Us)]),
      right: [1, 2, 3, 4],
    });
    out.push(ratioTable('1. Ratios of claims/s, pair by pair within each round', u.ratios));
  }
  for (const c of [r.contended, r.contendedMany, r.contended16, ...(r.contendedWarm ?? [])]) {
    if (!c) continue;
    out.push({
      title: `2. Contended: ${c.workers} ${c.warmClaims > 0 ? `long-lived processes (each warmed by ${c.warmClaims} claims on a board of its own)` : 'fresh processes'} drain a ${c.tasks.toLocaleString('en-US')}-task board, ${c.rounds} rounds, ${c.cores} cores`,
      head: ['claimer', 'claims/s (median)', 'IQR', 'p50 ms', 'p99 ms', 'worst ms', `p99 past ${WARM_CLAIMS}`, `worst past ${WARM_CLAIMS}`, 'drain checks'],
      rows: Object.entries(c.claimers).map(([k, v]) => [
        k, num(v!.claimsPerSec.median), `${num(v!.claimsPerSec.q25)}–${num(v!.claimsPerSec.q75)}`, num(v!.p50Ms), num(v!.p99Ms), num(v!.worstMs),
        // No process made that many claims (a quick run's small board): nothing to show.
        Number.isNaN(v!.p99WarmMs) ? '–' : num(v!.p99WarmMs), Number.isNaN(v!.worstWarmMs) ? '–' : num(v!.worstWarmMs),
        `${v!.checks.filter((x) => x.ok).length}/${v!.checks.length} passed`,
      ]),
      right: [1, 2, 3, 4, 5, 6, 7],
    });
    out.push(ratioTable(`2. Ratios of aggregate claims/s, run by run (${c.workers} ${c.warmClaims > 0 ? 'long-lived' : 'fresh'} processes, ${c.cores} cores)`, c.ratios));
    out.push(...contendedTimeTables(c));
  }
  const s = r.scaling;
  if (s) {
    out.push({
      title: `3. Scaling, ${s.rounds} rounds: claims on a board whose first half is claimed; reap of a board with every 10th task stale`,
      head: ['tasks', 'claim board KiB', 'claim p50 ms', 'claim p99 ms', 'µs/KiB', 'reap board KiB', 'reap ms (median)', 'µs/KiB'],
      rows: s.sizes.map((x) => [
        x.tasks.toLocaleString('en-US'), num(x.claimBoardKiB), num(x.claimP50Ms), num(x.claimP99Ms), num(x.claimUsPerKiB),
        num(x.reapBoardKiB), num(x.reapMedianMs), num(x.reapUsPerKiB),
      ]),
      right: [0, 1, 2, 3, 4, 5, 6, 7],
    });
    out.push({
      title: '3. The same boards written as ADW bare lines (`[ ] task`), timed in the same rounds',
      head: ['tasks', 'claim board KiB', 'claim p50 ms', 'claim p99 ms', 'bare / list claim p50', 'reap ms (median)', 'bare / list reap'],
      rows: s.sizes.map((x) => [
        x.tasks.toLocaleString('en-US'), num(x.bare.claimBoardKiB), num(x.bare.claimP50Ms), num(x.bare.claimP99Ms), `${x.bareOverList.claim.toFixed(2)}×`,
        num(x.bare.reapMedianMs), `${x.bareOverList.reap.toFixed(2)}×`,
      ]),
      right: [0, 1, 2, 3, 4, 5, 6],
    });
    out.push({
      title: '3. Growth between the two largest boards (log-log slope of time against bytes; 1 = linear)',
      head: ['claim p50', 'reap'],
      rows: [[num(s.claimSlope), num(s.reapSlope)]],
      right: [0, 1],
    });
  }
  const k = r.cli;
  if (k) {
    out.push({
      title: `4. CLI start-up, ${k.pairs} interleaved pairs, every process without NODE_EXTRA_CA_CERTS; peak RSS on a ${k.rssTasks.toLocaleString('en-US')}-task board (${num(k.rssBoardKiB)} KiB, ${k.rssMethod})`,
      head: ['run', 'wall ms (median)', 'IQR', 'peak RSS MiB'],
      rows: [
        ['mdclaim next', num(k.nextMs.median), `${num(k.nextMs.q25)}–${num(k.nextMs.q75)}`, num(k.nextPeakRssMiB)],
        ['node -e 0', num(k.bareNodeMs.median), `${num(k.bareNodeMs.q25)}–${num(k.bareNodeMs.q75)}`, num(k.bareNodePeakRssMiB)],
        ['next / bare, pair by pair', times(k.ratio), '', ''],
        ['mdclaim next, fs-ext not built (flock through koffi)', num(k.ffiNextMs.median), `${num(k.ffiNextMs.q25)}–${num(k.ffiNextMs.q75)}`, ''],
        ['next through koffi / bare, pair by pair', times(k.ffiRatio), '', ''],
      ],
      right: [1, 3],
    });
    if (k.big.length > 0) {
      out.push({
        title: `4. A fresh CLI \`next\` on big boards whose first half is claimed, interleaved with \`node -e 0\`, both without NODE_EXTRA_CA_CERTS${k.extraCaCerts ? ' (set here, and unset for every process timed: it makes each Node start read a certificate bundle first)' : ''}`,
        head: ['tasks', 'lines', 'board KiB', 'next wall ms (median)', 'IQR', 'node -e 0 ms', 'next / bare, pair by pair', 'CPU ms, next / bare', 'page faults, next / bare'],
        rows: k.big.map((b) => [
          b.tasks.toLocaleString('en-US'), b.shape === 'bare' ? 'bare' : 'list items', num(b.boardKiB), num(b.nextMs.median), `${num(b.nextMs.q25)}–${num(b.nextMs.q75)}`, num(b.bareNodeMs.median), times(b.ratio),
          `${num(cpuMs(b.nextCpu))} / ${num(cpuMs(b.bareCpu))}`, `${num(b.nextCpu.pageFaults)} / ${num(b.bareCpu.pageFaults)}`,
        ]),
        right: [0, 2, 3, 5, 7, 8],
      });
    }
  }
  const w = r.write;
  if (w) {
    out.push({
      title: `5. Write paths, ${w.tasks}-task board drained per round, ${w.rounds} rounds (in-place kept the inode, replace swapped it: ${w.pathsAsExpected ? 'yes' : 'NO'})`,
      head: ['path', 'claims/s (median)', 'IQR', 'p50 µs', 'p99 µs'],
      rows: Object.entries(w.claimers).map(([k2, v]) => [k2, num(v.claimsPerSec.median), `${num(v.claimsPerSec.q25)}–${num(v.claimsPerSec.q75)}`, num(v.p50Us), num(v.p99Us)]),
      right: [1, 2, 3, 4],
    });
    out.push(ratioTable('5. Ratios of claims/s, pair by pair within each round', w.ratios));
  }
  const st = r.start;
  if (st) {
    const row = (what: string, x: Spread) => [what, num(x.median), `${num(x.q25)}–${num(x.q75)}`];
    out.push({
      title: `6. Starting a command, ${st.pairs} interleaved rounds of \`true\` to its exit; a runner's watchdog (resident ${st.watchdogRssKiB === null ? 'not measured' : `${num(st.watchdogRssKiB / 1024)} MiB`})`,
      head: ['start', 'wall ms (median)', 'IQR'],
      rows: [
        row('spawned bare', st.bareMs),
        row('through the gate', st.gateMs),
        row('telling the watchdog', st.armMs),
        row('added per command (gate − bare, pair by pair, + telling)', st.addedMs),
        row('the runner\'s whole start and end', st.runnerMs),
        row('the watchdog itself, once per runner', st.watchdogStartMs),
      ],
      right: [1, 2],
    });
  }
  const pgr = r.postgres;
  if (pgr) {
    out.push({
      title: `7. PostgreSQL claimers, one server, ${pgr.rounds} rounds, interleaved run by run (\`synchronous_commit=off\` for all)`,
      head: ['processes', 'tasks', 'claims', 'claimer', 'claims/s (median)', 'IQR', 'p50 ms', 'p99 ms', `p99 past ${WARM_CLAIMS}`, 'drain checks'],
      rows: pgr.points.flatMap((p) => Object.entries(p.claimers).map(([k2, v]) => [
        String(p.procs), p.tasks.toLocaleString('en-US'), p.claims.toLocaleString('en-US'), k2, num(v.claimsPerSec.median),
        `${num(v.claimsPerSec.q25)}–${num(v.claimsPerSec.q75)}`, num(v.p50Ms), num(v.p99Ms), Number.isNaN(v.p99WarmMs) ? '–' : num(v.p99WarmMs),
        `${v.checks.filter((x) => x.ok).length}/${v.checks.length} passed`,
      ])),
      right: [0, 1, 2, 4, 5, 6, 7, 8],
    });
    out.push({
      title: '7. Ratios of claims/s, run by run',
      head: ['ratio', 'median', 'IQR', 'min–max'],
      rows: [
        ...pgr.points.flatMap((p) => p.ratios.map((x) => [`${x.a} / ${x.b}, ${p.procs} process${p.procs === 1 ? '' : 'es'}, ${p.tasks.toLocaleString('en-US')} tasks`, x.ratio] as const)),
        [`mdclaim-pg, 1 process: ${pgr.bigOverSmall.tasks[0].toLocaleString('en-US')} tasks / ${pgr.bigOverSmall.tasks[1].toLocaleString('en-US')}`, pgr.bigOverSmall.ratio] as const,
        [`mdclaim-pg, ${pgr.points[0]!.tasks.toLocaleString('en-US')} tasks: ${pgr.manyOverFew.procs[0]} processes / ${pgr.manyOverFew.procs[1]}`, pgr.manyOverFew.ratio] as const,
      ].map(([what, x]) => [what, `${x.median.toFixed(2)}×`, `${x.q25.toFixed(2)}–${x.q75.toFixed(2)}`, `${x.min.toFixed(2)}–${x.max.toFixed(2)}`]),
      right: [1, 2, 3],
    });
    out.push(...postgresTimeTables(pgr));
    const h = pgr.halfClaimed;
    const b = pgr.blockedAbove;
    out.push({
      title: '7. The PostgreSQL board\'s `next` on two shapes of board, one process',
      head: ['board', 'claims', 'p50 ms', 'p99 ms'],
      rows: [
        [`${h.tasks.toLocaleString('en-US')} tasks, every other one claimed by another (24h lease)`, String(h.claims), num(h.p50Ms), num(h.p99Ms)],
        [`${b.blocked.toLocaleString('en-US')} \`[⏰]\` tasks waiting on a claimed one above the first open task`, String(b.claims), num(b.p50Ms), num(b.p99Ms)],
      ],
      right: [1, 2, 3],
    });
    out.push({
      title: `7. Where a \`next\` spends its time on the server: EXPLAIN (ANALYZE, BUFFERS) of the board's own statement (median of ${pgr.explain[0]?.runs ?? 0} runs, each rolled back)`,
      head: ['board', 'tasks', 'execution ms', 'planning ms', 'shared buffers hit+read', 'top node rows', 'plan nodes'],
      rows: pgr.explain.map((x) => [
        x.blocked > 0 ? `${x.blocked.toLocaleString('en-US')} \`[⏰]\` above the first open task` : 'first half claimed by another (24h lease)',
        x.tasks.toLocaleString('en-US'), num(x.executionMs), num(x.planningMs), String(x.buffers), String(x.topRows), String(x.nodes),
      ]),
      right: [1, 2, 3, 4, 5, 6],
    });
  }
  const t = targets(r);
  out.push({
    title: 'Targets',
    head: ['#', 'target', 'goal', 'measured', 'verdict', 'why (when missed)'],
    rows: t.map((x) => [x.id, x.what, x.goal, x.shown, x.met === null ? 'not run' : x.met ? 'met' : 'MISSED', x.why ?? '']),
    right: [3],
  });
  return out;
}

function ratioTable(title: string, ratios: Array<{ a: string; b: string; ratio: Spread }>): Table {
  return {
    title,
    head: ['ratio', 'median', 'IQR', 'min–max'],
    rows: ratios.map((x) => [`${x.a} / ${x.b}`, `${x.ratio.median.toFixed(2)}×`, `${x.ratio.q25.toFixed(2)}–${x.ratio.q75.toFixed(2)}`, `${x.ratio.min.toFixed(2)}–${x.ratio.max.toFixed(2)}`]),
    right: [1, 2, 3],
  };
}

export function toText(ts: Table[]): string {
  return ts
    .map((t) => {
      const all = [t.head, ...t.rows];
      const w = t.head.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
      const line = (r: Row) =>
        r.map((cell, i) => (t.right?.includes(i) ? cell.padStart(w[i]!) : cell.padEnd(w[i]!))).join('  ').trimEnd();
      return [t.title, line(t.head), w.map((x) => '-'.repeat(x)).join('  '), ...t.rows.map(line)].join('\n');
    })
    .join('\n\n');
}

export function toMarkdown(ts: Table[]): string {
  return ts
    .map((t) => {
      const esc = (s: string) => s.replace(/\|/g, '\\|');
      const align = t.head.map((_, i) => (t.right?.includes(i) ? '---:' : '---'));
      return [`**${t.title}**`, '', `| ${t.head.map(esc).join(' | ')} |`, `| ${align.join(' | ')} |`, ...t.rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
    })
    .join('\n\n');
}
