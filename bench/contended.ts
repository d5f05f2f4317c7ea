import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { parseTasks, PgBoard } from 'mdclaim';
import { pgBoardUrl } from './pg.js';
import { createTaskDb } from './claimers.js';
import { claimCpu, medianCpu, type ClaimCpu } from './cpu.js';
import { PHASES, type ClaimSplit } from './fs-split.js';
import { boardText, CLAIMED, progress, quantile, rotate, spread, tempDir, WARM_CLAIMS, type Spread } from './util.js';
import type { WorkerJob, WorkerReport } from './worker.js';

export type Kind = WorkerJob['kind'];
const FILE_KINDS: Kind[] = ['mdclaim', 'mdclaim-koffi', 'floor', 'sqlite', 'lockfile'];

/** Preloaded into mdclaim-koffi workers: fs-ext does not load there, as after an install without a compiler. */
const NO_FS_EXT = fileURLToPath(new URL('../no-fs-ext.cjs', import.meta.url));

export interface DrainCheck {
  ok: boolean;
  /** Tasks the board (or table) shows as claimed. */
  claimed: number;
  /** Claims the workers logged. */
  logged: number;
  /** Logged more than once: two workers both believe they hold it. */
  duplicates: number;
  /** Not claimed on the board, or claimed there but in nobody's log. */
  lost: number;
  /** Logged by one worker while the board names another holder. */
  wrongHolder: number;
  problems: string[];
}

export interface ContendedFigures {
  claimsPerSec: Spread;
  p50Ms: number;
  p99Ms: number;
  /** The longest any one claim took, lock wait included: what the unluckiest waiter saw. */
  worstMs: number;
  /** p99 and worst of the claims after each process's first WARM_CLAIMS: the tail once the processes' start-up is behind them. */
  p99WarmMs: number;
  worstWarmMs: number;
  busyRetries: number;
  /** CPU of the claimer processes per claim, median over the runs. */
  cpu: ClaimCpu;
  checks: DrainCheck[];
}

export interface ContendedResult {
  tasks: number;
  workers: number;
  rounds: number;
  claimers: Partial<Record<Kind, ContendedFigures>> & Record<'mdclaim' | 'sqlite' | 'lockfile', ContendedFigures>;
  ratios: Array<{ a: Kind; b: Kind; ratio: Spread }>;
  /** One more run of mdclaim and of the floor with each claim split by phase (µs, mean over the claims past each process's first WARM_CLAIMS). */
  split: Partial<Record<Kind, ClaimSplit>>;
  /** From the same runs: the hand-off between holders, and the time under the lock. */
  handOff: Partial<Record<Kind, HandOff>>;
  /** Each process claimed this many tasks from a board of its own before the round (0: fresh processes). */
  warmClaims: number;
  /** The machine's cores (os.availableParallelism()). */
  cores: number;
  allChecksPassed: boolean;
}

/** The contended case at each worker count (8 for the targets, 32 beside it). */
export type ContendedRuns = ContendedResult[];

/**
 * How the lock passed from one holder to the next, over every claim of a split run (each claim's
 * time under the lock stamped by the clock every process shares): the gap from one holder's last
 * call under the lock to the next holder's first touch of the board (its unlock, the kernel's
 * wake-up and the waiter's way back to the board), and the time a claim holds the lock.
 */
export interface HandOff {
  gapP50Us: number;
  gapMeanUs: number;
  gapP99Us: number;
  heldP50Us: number;
  heldMeanUs: number;
  /** mdclaim only: per claim, waits that found the lock taken, brief blocks of the claiming thread, kernel waits off it (each a second wake-up), polls and non-blocking tries. */
  waitsPerClaim?: number;
  blocksPerClaim?: number;
  wakeUpsPerClaim?: number;
  pollsPerClaim?: number;
  triesPerClaim?: number;
}

export interface ContendedConfig {
  tasks: number;
  workers: number;
  rounds: number;
  /** Warm each process first with this many claims on a board of its own (default 0: fresh processes). */
  warmClaims?: number;
  /** Only these claimers (default: every file claimer, and PostgreSQL with `pg`). */
  kinds?: Kind[];
  /** Race the PostgreSQL board too (when its server answers). */
  pg: boolean;
}

const WORKER = new URL('./worker.js', import.meta.url);

function once<T>(child: ChildProcess, pred: (m: unknown) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMsg = (m: unknown) => {
      if (!pred(m)) return;
      child.off('message', onMsg);
      child.off('close', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`bench worker exited with ${code} before reporting`));
    child.on('message', onMsg);
    // 'close', not 'exit': a worker's last message can be delivered after its 'exit' event on a loaded machine.
    child.once('close', onExit);
  });
}

/** Holder per task text, and the count of open lines, read straight from the markdown (not through the library). */
function readMarkdown(path: string): { holders: Map<string, string[]>; open: number } {
  const holders = new Map<string, string[]>();
  let open = 0;
  const claimed = new RegExp(`^- \\[${CLAIMED}, ([^,\\]]+), [0-9TZ:-]+\\] (task \\d+)$`);
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('- [ ] ')) open++;
    const m = claimed.exec(line);
    if (m) holders.set(m[2]!, [...(holders.get(m[2]!) ?? []), m[1]!]);
  }
  return { holders, open };
}

/** Compare what the board says with what every worker believes it claimed. */
function check(kind: Kind, path: string, tasks: number, logs: Map<string, string[]>): DrainCheck {
  const problems: string[] = [];
  let holderOf: Map<string, string[]>;
  let open: number;
  if (kind === 'sqlite') {
    const db = new Database(path, { readonly: true });
    const rows = db.prepare<[], { text: string; owner: string | null }>('SELECT text, owner FROM tasks').all();
    db.close();
    holderOf = new Map(rows.filter((r) => r.owner !== null).map((r) => [r.text, [r.owner!]]));
    open = rows.filter((r) => r.owner === null).length;
  } else {
    ({ holders: holderOf, open } = readMarkdown(path));
    // The library's own reading of the file must agree with the line count.
    const parsed = parseTasks(readFileSync(path));
    const notClaimed = parsed.filter((t) => t.status !== 'claimed').length;
    if (parsed.length !== tasks || notClaimed > 0) problems.push(`library sees ${parsed.length} tasks, ${notClaimed} not claimed`);
  }
  const claimed = [...holderOf.values()].reduce((s, h) => s + h.length, 0);
  const twice = [...holderOf.values()].filter((h) => h.length > 1).length;
  const all = [...logs.values()].flat();
  const seen = new Set<string>();
  let duplicates = 0;
  for (const t of all) (seen.has(t) ? duplicates++ : seen.add(t));
  let wrongHolder = 0;
  for (const [by, got] of logs) for (const t of got) if (!(holderOf.get(t) ?? []).includes(by)) wrongHolder++;
  let lost = 0;
  for (let i = 1; i <= tasks; i++) if (!holderOf.has(`task ${i}`) || !seen.has(`task ${i}`)) lost++;
  if (open > 0) problems.push(`${open} tasks still open`);
  if (claimed !== tasks) problems.push(`${claimed} claimed lines for ${tasks} tasks`);
  if (twice > 0) problems.push(`${twice} tasks appear claimed more than once`);
  if (all.length !== tasks) problems.push(`workers logged ${all.length} claims for ${tasks} tasks`);
  if (duplicates > 0) problems.push(`${duplicates} tasks logged by more than one worker`);
  if (lost > 0) problems.push(`${lost} tasks lost`);
  if (wrongHolder > 0) problems.push(`${wrongHolder} logged claims whose board holder differs`);
  return { ok: problems.length === 0, claimed, logged: all.length, duplicates, lost, wrongHolder, problems };
}

interface RunResult {
  claimsPerSec: number;
  latMs: number[];
  /** Each process's claims after its first WARM_CLAIMS. */
  warmMs: number[];
  busy: number;
  cpu: ClaimCpu;
  split?: ClaimSplit;
  handOff?: HandOff;
  check: DrainCheck;
}

/** What the caller measures around a race: once every worker is ready, and once all have reported, before they let go of their connections. */
export interface RaceHooks {
  ready?: () => Promise<void>;
  reported?: (reports: WorkerReport[]) => Promise<void>;
}

/** Fork one worker per job, let them all get ready, start them together and collect their reports; none is left running. */
export async function raceWorkers(jobs: WorkerJob[], execArgv: string[] = [], hooks: RaceHooks = {}, env: NodeJS.ProcessEnv = process.env): Promise<WorkerReport[]> {
  const children: ChildProcess[] = [];
  const exits: Array<Promise<number | null>> = [];
  try {
    const ready: Array<Promise<unknown>> = [];
    for (const job of jobs) {
      const child = fork(WORKER, [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, env });
      children.push(child);
      exits.push(new Promise((resolve) => child.once('exit', (code) => resolve(code))));
      ready.push(once(child, (m) => m === 'ready'));
    }
    await Promise.all(ready);
    await hooks.ready?.();
    const reports = children.map((c) => once<WorkerReport>(c, (m) => typeof m === 'object' && m !== null && 'latUs' in m));
    for (const c of children) c.send('go');
    const done = await Promise.all(reports);
    await hooks.reported?.(done);
    for (const c of children) c.send('bye');
    const codes = await Promise.all(exits);
    if (codes.some((c) => c !== 0)) throw new Error(`${jobs[0]?.kind}: a worker exited with ${codes.join(',')}`);
    return done;
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

/** Fork the workers, let them get ready, start them together, drain the board, then check it. */
async function run(kind: Kind, cfg: ContendedConfig, split = false): Promise<RunResult> {
  const dir = tempDir(`c-${kind}`);
  let path: string;
  let board: PgBoard | null = null;
  if (kind === 'postgres') {
    path = pgBoardUrl(`c${cfg.workers}`, false);
    board = new PgBoard(path, { pool: 1 });
    await board.importDocument(Buffer.from(boardText(cfg.tasks)));
  } else if (kind === 'sqlite') {
    path = join(dir, 'tasks.db');
    createTaskDb(path, cfg.tasks, 'NORMAL').close();
  } else {
    path = join(dir, 'tasks.md');
    writeFileSync(path, boardText(cfg.tasks));
  }
  const execArgv = kind === 'mdclaim-koffi' ? ['--require', NO_FS_EXT] : [];
  const warm = cfg.warmClaims ?? 0;
  const warmBoard = (i: number): string => {
    const own = join(dir, `warm${i}`);
    mkdirSync(own);
    writeFileSync(join(own, 'tasks.md'), boardText(warm));
    return join(own, 'tasks.md');
  };
  const jobs = Array.from({ length: cfg.workers }, (_, i): WorkerJob => ({
    kind, path, by: `w${i}`, log: join(dir, `w${i}.log`), ...(split ? { split } : {}),
    ...(warm > 0 && (kind.startsWith('mdclaim') || kind === 'floor') ? { warmClaims: warm, warmBoard: warmBoard(i) } : {}),
  }));
  const env = kind === 'mdclaim-helper' || kind === 'mdclaim-pool' ? { ...process.env, MDCLAIM_LOCK_WAIT: kind.slice('mdclaim-'.length) } : process.env;
  const done = await raceWorkers(jobs, execArgv, {}, env);
  const start = done.reduce((m, r) => (BigInt(r.start) < m ? BigInt(r.start) : m), BigInt(done[0]!.start));
  const end = done.reduce((m, r) => (BigInt(r.end) > m ? BigInt(r.end) : m), BigInt(done[0]!.end));
  const logs = new Map(done.map((r, i) => [r.by, readFileSync(join(dir, `w${i}.log`), 'utf8').split('\n').filter(Boolean)]));
  const total = done.reduce((s, r) => s + r.claims, 0);
  // The PostgreSQL board is checked on its export, with the same markdown reading as the file board.
  if (board) {
    writeFileSync(join(dir, 'export.md'), await board.exportDocument());
    await board.close();
  }
  return {
    claimsPerSec: total / (Number(end - start) / 1e9),
    latMs: done.flatMap((r) => r.latUs.map((u) => u / 1000)),
    warmMs: done.flatMap((r) => r.latUs.slice(WARM_CLAIMS).map((u) => u / 1000)),
    busy: done.reduce((s, r) => s + r.busy, 0),
    cpu: claimCpu(done),
    ...(split ? { split: meanSplit(done.flatMap((r) => (r.split ? [r.split] : []))), handOff: handOffOf(done) } : {}),
    check: board ? check('mdclaim', join(dir, 'export.md'), cfg.tasks, logs) : check(kind, path, cfg.tasks, logs),
  };
}

/** The gaps between consecutive holders and the time each held the lock, over every claim of a run. */
function handOffOf(done: readonly WorkerReport[]): HandOff {
  const held = done.flatMap((r) => r.held ?? []).sort((a, b) => a[0] - b[0]);
  const gaps: number[] = [];
  for (let i = 1; i < held.length; i++) gaps.push(Math.max(0, held[i]![0] - held[i - 1]![1]));
  const spans = held.map(([a, b]) => b - a);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(xs.length, 1);
  const claims = done.reduce((s, r) => s + r.claims, 0) || 1;
  const waits = done.some((r) => r.lockWaits) ? done.map((r) => r.lockWaits ?? { waits: 0, blocks: 0, kernelWaits: 0, polls: 0, tries: 0 }) : null;
  const per = (k: 'waits' | 'blocks' | 'kernelWaits' | 'polls' | 'tries') => waits!.reduce((s, w) => s + w[k], 0) / claims;
  return {
    gapP50Us: quantile(gaps, 0.5) || 0,
    gapMeanUs: mean(gaps),
    gapP99Us: quantile(gaps, 0.99) || 0,
    heldP50Us: quantile(spans, 0.5) || 0,
    heldMeanUs: mean(spans),
    ...(waits ? { waitsPerClaim: per('waits'), blocksPerClaim: per('blocks'), wakeUpsPerClaim: per('kernelWaits'), pollsPerClaim: per('polls'), triesPerClaim: per('tries') } : {}),
  };
}

/** The mean of each phase over the workers. */
function meanSplit(splits: readonly ClaimSplit[]): ClaimSplit {
  return Object.fromEntries(PHASES.map((k) => [k, splits.reduce((n, x) => n + x[k], 0) / Math.max(splits.length, 1)])) as unknown as ClaimSplit;
}

/** Case 2: many processes draining one board at once, each way of claiming in turn, round after round. */
export async function contended(cfg: ContendedConfig): Promise<ContendedResult> {
  const KINDS: Kind[] = cfg.kinds ?? (cfg.pg ? [...FILE_KINDS, 'postgres'] : FILE_KINDS);
  const warmNote = cfg.warmClaims ? `, warmed by ${cfg.warmClaims} claims each` : '';
  const rates = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const lats = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const warm = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const busy = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  const cpu = new Map<Kind, ClaimCpu[]>(KINDS.map((k) => [k, []]));
  const checks = new Map<Kind, DrainCheck[]>(KINDS.map((k) => [k, []]));
  for (let r = 0; r < cfg.rounds; r++) {
    for (const kind of rotate(KINDS, r)) {
      progress(`contended: round ${r + 1}/${cfg.rounds}, ${kind}, ${cfg.workers} processes on ${cfg.tasks} tasks${warmNote}`);
      const res = await run(kind, cfg);
      rates.get(kind)!.push(res.claimsPerSec);
      lats.get(kind)!.push(...res.latMs);
      warm.get(kind)!.push(...res.warmMs);
      busy.set(kind, busy.get(kind)! + res.busy);
      cpu.get(kind)!.push(res.cpu);
      checks.get(kind)!.push(res.check);
      if (!res.check.ok) progress(`contended: ${kind} DRAIN CHECK FAILED: ${res.check.problems.join('; ')}`);
    }
  }
  const split: Partial<Record<Kind, ClaimSplit>> = {};
  const handOff: Partial<Record<Kind, HandOff>> = {};
  for (const kind of (['mdclaim', 'mdclaim-pool', 'mdclaim-helper', 'floor'] as const).filter((k) => k === 'mdclaim' || k === 'floor' || KINDS.includes(k))) {
    progress(`contended: ${kind}, ${cfg.workers} processes${warmNote}, each claim split by phase`);
    const res = await run(kind, cfg, true);
    checks.get(kind)!.push(res.check);
    if (res.split) split[kind] = res.split;
    if (res.handOff) handOff[kind] = res.handOff;
  }
  const claimers = {} as Record<Kind, ContendedFigures>;
  for (const k of KINDS) {
    const lat = lats.get(k)!;
    claimers[k] = {
      claimsPerSec: spread(rates.get(k)!),
      p50Ms: quantile(lat, 0.5),
      p99Ms: quantile(lat, 0.99),
      worstMs: quantile(lat, 1),
      p99WarmMs: quantile(warm.get(k)!, 0.99),
      worstWarmMs: quantile(warm.get(k)!, 1),
      busyRetries: busy.get(k)!,
      cpu: medianCpu(cpu.get(k)!),
      checks: checks.get(k)!,
    };
  }
  const ratio = (a: Kind, b: Kind) => ({ a, b, ratio: spread(rates.get(a)!.map((x, i) => x / rates.get(b)![i]!)) });
  const pairs: Array<[Kind, Kind]> = [['mdclaim', 'floor'], ['mdclaim-koffi', 'floor'], ['mdclaim-koffi', 'mdclaim'], ['mdclaim-helper', 'floor'], ['mdclaim-pool', 'floor'], ['mdclaim', 'mdclaim-helper'], ['mdclaim', 'mdclaim-pool'], ['mdclaim', 'sqlite'], ['mdclaim', 'lockfile'], ['postgres', 'sqlite'], ['mdclaim', 'postgres']];
  return {
    tasks: cfg.tasks,
    workers: cfg.workers,
    rounds: cfg.rounds,
    warmClaims: cfg.warmClaims ?? 0,
    cores: availableParallelism(),
    claimers,
    split,
    handOff,
    ratios: pairs.filter(([a, b]) => KINDS.includes(a) && KINDS.includes(b)).map(([a, b]) => ratio(a, b)),
    allChecksPassed: KINDS.every((k) => checks.get(k)!.every((c) => c.ok)),
  };
}
