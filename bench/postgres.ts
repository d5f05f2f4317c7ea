import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkerUtils, type WorkerUtils } from 'graphile-worker';
import { PgBoard } from 'mdclaim';
import pg from 'pg';
import { raceWorkers } from './contended.js';
import { fillGraphile, graphileLeft, quiet } from './graphile.js';
import { PG_URL } from './pg.js';
import { explainNext, type ExplainRow } from './pg-explain.js';
import { blockedAboveText, firstHalfClaimedText, halfClaimedText, shape } from './pg-shapes.js';
import { fillSkipLocked, readSkipLocked } from './skip-locked.js';
import { claimCpu, medianCpu, type ClaimCpu } from './cpu.js';
import { ownBackends, watchServer, type ServerFigures } from './pg-server.js';
import { boardText, progress, quantile, rotate, spread, tempDir, WARM_CLAIMS, type Spread } from './util.js';
import type { WorkerJob, WorkerReport } from './worker.js';

// Case 7: the PostgreSQL board beside a plain SKIP LOCKED claimer and graphile-worker, on one server, in one database of its own.

export const PG_KINDS = ['mdclaim-pg', 'skip-locked', 'graphile-worker'] as const;
export type PgKind = (typeof PG_KINDS)[number];

export interface PostgresConfig {
  /** The board the process counts race on, drained whole. */
  tasks: number;
  procs: number[];
  /** The big board one process claims `bigClaims` from. */
  bigTasks: number;
  bigClaims: number;
  rounds: number;
  /** The shape boards: half of `halfTasks` claimed by others; `blocked` ⏰ tasks above the first open one. */
  halfTasks: number;
  blocked: number;
  shapeClaims: number;
  /** Boards whose `next` is EXPLAINed (first half claimed by another), and the runs of each, past two to warm up. */
  explainTasks: number[];
  explainRuns: number;
  /** Claims each process makes from a board of its own before a warmed round (see WarmedFigures). */
  warmClaims: number;
}

export interface PgCheck {
  ok: boolean;
  problems: string[];
}

export interface PgFigures {
  claimsPerSec: Spread;
  p50Ms: number;
  p99Ms: number;
  /** p99 of the claims past each process's first WARM_CLAIMS: the tail once its start-up is behind it. */
  p99WarmMs: number;
  /** The claimer processes' CPU per claim (median over the rounds). */
  cpu: ClaimCpu;
  /** Their server backends' CPU per claim (median over the rounds; absent where /proc cannot show it). */
  serverCpuUs?: number;
  /** What their backends were doing, sampled through every round (see pg-server.ts). */
  server: { samples: number; share: Record<string, number>; lockWaiting: number };
  checks: PgCheck[];
}

export interface PgPoint {
  tasks: number;
  /** Claims per round: the whole board, or `bigClaims` of the big one. */
  claims: number;
  procs: number;
  claimers: Record<PgKind, PgFigures>;
  ratios: Array<{ a: string; b: string; ratio: Spread }>;
}

export interface ShapeFigures {
  tasks: number;
  claims: number;
  p50Ms: number;
  p99Ms: number;
}

export interface PostgresResult {
  rounds: number;
  points: PgPoint[];
  /** mdclaim-pg, one process, round by round: the big board over the small one. */
  bigOverSmall: { tasks: [number, number]; ratio: Spread };
  /** mdclaim-pg on the small board, round by round: the most processes over the next most. */
  manyOverFew: { procs: [number, number]; ratio: Spread };
  /** Each claimer on the small board, round by round: each count of processes over one process. */
  overOne: Array<{ kind: PgKind; procs: number; ratio: Spread }>;
  halfClaimed: ShapeFigures;
  blockedAbove: ShapeFigures & { blocked: number };
  /** mdclaim-pg with warmed processes: the fewest and the next fewest processes, round by round. */
  warmed: WarmedFigures;
  /** EXPLAIN ANALYZE of the board's own `next`: one row a board of `explainTasks`, then the ⏰ board. */
  explain: ExplainRow[];
  allChecksPassed: boolean;
}

/** The case's own database on the bench's server; synchronous_commit=off for every connection to it, so all three claimers alike. */
async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mdclaim_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new URL(PG_URL);
  admin.pathname = '/postgres';
  admin.search = '';
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const sql = async (q: string) => {
    const c = new pg.Client({ connectionString: admin.toString() });
    c.on('error', () => {});
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end().catch(() => {});
    }
  };
  await sql(`CREATE DATABASE ${name}`);
  await sql(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  return { url: url.toString(), drop: () => sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * The same drain with every process warmed first by `claims` claims from a board of its own: what
 * the rate with more processes is once no process is paying for its start (the code of the claim
 * path compiled, a fresh process's first claims), interleaved round by round.
 */
export interface WarmedFigures {
  claims: number;
  procs: [number, number];
  claimsPerSec: [Spread, Spread];
  cpu: [ClaimCpu, ClaimCpu];
  /** Rate with the more processes over the rate with the fewer, round by round. */
  ratio: Spread;
}

interface Env {
  url: string;
  boards: Map<string, PgBoard>;
  sql: pg.Client;
  utils: WorkerUtils;
}

function boardUrl(env: Env, name: string): string {
  const u = new URL(env.url);
  u.searchParams.set('board', name);
  return u.toString();
}

function boardFor(env: Env, name: string): PgBoard {
  let b = env.boards.get(name);
  if (!b) env.boards.set(name, (b = new PgBoard(boardUrl(env, name), { pool: 1 })));
  return b;
}

/** What the store says was taken, by whom, against what the workers logged. */
async function check(env: Env, kind: PgKind, board: string, tasks: number, claims: number, logs: Map<string, string[]>): Promise<PgCheck> {
  const problems: string[] = [];
  const all = [...logs.values()].flat();
  if (all.length !== claims) problems.push(`workers logged ${all.length} claims, expected ${claims}`);
  if (new Set(all).size !== all.length) problems.push(`${all.length - new Set(all).size} tasks logged twice`);
  let holders: Map<string, string> | null = null;
  if (kind === 'mdclaim-pg') {
    const list = await boardFor(env, board).list();
    holders = new Map(list.filter((t) => t.status === 'claimed' && t.by !== undefined).map((t) => [t.text, t.by!]));
  } else if (kind === 'skip-locked') {
    holders = (await readSkipLocked(env.sql)).holders;
  } else {
    // Its jobs are deleted as they complete: at most one more per process (taken as it stopped at its limit).
    const left = await graphileLeft(env.utils);
    const procs = logs.size;
    if (left > tasks - all.length || left < tasks - all.length - (claims < tasks ? procs : 0)) problems.push(`${left} jobs left of ${tasks} after ${all.length} taken`);
  }
  if (holders) {
    if (holders.size !== all.length) problems.push(`${holders.size} claimed in the store, ${all.length} logged`);
    let wrong = 0;
    for (const [by, got] of logs) for (const t of got) if (holders.get(t) !== by) wrong++;
    if (wrong > 0) problems.push(`${wrong} logged claims whose holder in the store differs`);
  }
  return { ok: problems.length === 0, problems };
}

interface RoundRun {
  claimsPerSec: number;
  latMs: number[];
  warmMs: number[];
  cpu: ClaimCpu;
  server: ServerFigures;
  check: PgCheck;
}

/** Fill the claimer's store (untimed), race `procs` processes on it, then check what they took. */
async function runOnce(env: Env, kind: PgKind, tasks: number, claims: number, procs: number, warmClaims = 0): Promise<RoundRun> {
  const board = `b${tasks}`;
  let path = env.url;
  let warmed = {};
  if (kind === 'mdclaim-pg') {
    path = boardUrl(env, board);
    await boardFor(env, board).importDocument(Buffer.from(boardText(tasks)), { replace: true });
    if (warmClaims > 0) {
      await boardFor(env, 'warm').importDocument(Buffer.from(boardText(procs * warmClaims)), { replace: true });
      warmed = { warmBoard: boardUrl(env, 'warm'), warmClaims };
    }
  } else if (kind === 'skip-locked') await fillSkipLocked(env.sql, tasks);
  else await fillGraphile(env.utils, tasks);
  const dir = tempDir(`pg-${kind}`);
  const limit = claims < tasks ? { limit: Math.ceil(claims / procs) } : {};
  const jobs = Array.from({ length: procs }, (_, i): WorkerJob => ({
    kind: kind === 'mdclaim-pg' ? 'postgres' : kind, path, by: `w${i}`, log: join(dir, `w${i}.log`), ...limit, warm: true, ...warmed,
  }));
  // The bench's own connections, open before any claimer's: every other backend of the database is a claimer's.
  const mine = await ownBackends(env.sql);
  let watch: Awaited<ReturnType<typeof watchServer>> | undefined;
  let server: ServerFigures | undefined;
  const done: WorkerReport[] = await raceWorkers(jobs, [], {
    ready: async () => void (watch = await watchServer(env.sql, mine)),
    reported: async (reports) => void (server = await watch!.stop(reports.reduce((n, r) => n + r.claims, 0))),
  });
  const start = done.reduce((m, r) => (BigInt(r.start) < m ? BigInt(r.start) : m), BigInt(done[0]!.start));
  const end = done.reduce((m, r) => (BigInt(r.end) > m ? BigInt(r.end) : m), BigInt(done[0]!.end));
  const logs = new Map(done.map((r, i) => [r.by, readFileSync(join(dir, `w${i}.log`), 'utf8').split('\n').filter(Boolean)]));
  const total = done.reduce((s, r) => s + r.claims, 0);
  return {
    claimsPerSec: total / (Number(end - start) / 1e9),
    latMs: done.flatMap((r) => r.latUs.map((u) => u / 1000)),
    warmMs: done.flatMap((r) => r.latUs.slice(WARM_CLAIMS).map((u) => u / 1000)),
    cpu: claimCpu(done),
    server: server!,
    check: await check(env, kind, board, tasks, claims, logs),
  };
}

/** The samples of several rounds as one. */
function pooledSamples(runs: readonly ServerFigures[]): PgFigures['server'] {
  const samples = runs.reduce((n, r) => n + r.samples, 0);
  const share: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.share)) share[k] = (share[k] ?? 0) + (v * r.samples) / Math.max(samples, 1);
  return { samples, share, lockWaiting: runs.reduce((n, r) => n + r.lockWaiting * r.samples, 0) / Math.max(samples, 1) };
}

/** Case 7: claims/s and latency of the three PostgreSQL claimers, interleaved run by run; then two board shapes. */
export async function postgres(cfg: PostgresConfig): Promise<PostgresResult> {
  const db = await createDatabase();
  const env: Env = { url: db.url, boards: new Map(), sql: new pg.Client({ connectionString: db.url }), utils: null as unknown as WorkerUtils };
  try {
    env.sql.on('error', () => {});
    await env.sql.connect();
    env.utils = await makeWorkerUtils({ connectionString: db.url, logger: quiet });
    await env.utils.migrate();
    const points = [
      ...cfg.procs.map((procs) => ({ tasks: cfg.tasks, claims: cfg.tasks, procs })),
      { tasks: cfg.bigTasks, claims: cfg.bigClaims, procs: 1 },
    ];
    const key = (p: (typeof points)[number], k: PgKind) => `${p.tasks} ${p.procs} ${k}`;
    const rates = new Map<string, number[]>();
    const lats = new Map<string, number[]>();
    const warms = new Map<string, number[]>();
    const checks = new Map<string, PgCheck[]>();
    const cpus = new Map<string, ClaimCpu[]>();
    const servers = new Map<string, ServerFigures[]>();
    const push = <T>(m: Map<string, T[]>, k: string, x: T[]) => m.set(k, [...(m.get(k) ?? []), ...x]);
    for (let r = 0; r < cfg.rounds; r++) {
      for (const p of rotate(points, r)) {
        for (const kind of rotate(PG_KINDS, r)) {
          progress(`postgres: round ${r + 1}/${cfg.rounds}, ${kind}, ${p.procs} process${p.procs === 1 ? '' : 'es'}, ${p.claims} claims on ${p.tasks} tasks`);
          const res = await runOnce(env, kind, p.tasks, p.claims, p.procs);
          push(rates, key(p, kind), [res.claimsPerSec]);
          push(lats, key(p, kind), res.latMs);
          push(warms, key(p, kind), res.warmMs);
          push(checks, key(p, kind), [res.check]);
          push(cpus, key(p, kind), [res.cpu]);
          push(servers, key(p, kind), [res.server]);
          if (!res.check.ok) progress(`postgres: ${kind} DRAIN CHECK FAILED: ${res.check.problems.join('; ')}`);
        }
      }
    }
    const warmProcs: [number, number] = [cfg.procs[0]!, cfg.procs[1]!];
    const warmRates: [number[], number[]] = [[], []];
    const warmCpus: [ClaimCpu[], ClaimCpu[]] = [[], []];
    for (let r = 0; r < cfg.rounds; r++) {
      for (const i of rotate([0, 1] as const, r)) {
        progress(`postgres: round ${r + 1}/${cfg.rounds}, mdclaim-pg, ${warmProcs[i]} process${warmProcs[i] === 1 ? '' : 'es'} each warmed by ${cfg.warmClaims} claims`);
        const res = await runOnce(env, 'mdclaim-pg', cfg.tasks, cfg.tasks, warmProcs[i], cfg.warmClaims);
        if (!res.check.ok) progress(`postgres: warmed mdclaim-pg DRAIN CHECK FAILED: ${res.check.problems.join('; ')}`);
        push(checks, `warmed ${warmProcs[i]}`, [res.check]);
        warmRates[i].push(res.claimsPerSec);
        warmCpus[i].push(res.cpu);
      }
    }
    const warmed: WarmedFigures = {
      claims: cfg.warmClaims,
      procs: warmProcs,
      claimsPerSec: [spread(warmRates[0]), spread(warmRates[1])],
      cpu: [medianCpu(warmCpus[0]), medianCpu(warmCpus[1])],
      ratio: spread(warmRates[1].map((x, i) => x / warmRates[0][i]!)),
    };
    const perRound = (a: string, b: string) => spread(rates.get(a)!.map((x, i) => x / rates.get(b)![i]!));
    const out: PgPoint[] = points.map((p) => {
      const claimers = {} as Record<PgKind, PgFigures>;
      for (const k of PG_KINDS) {
        const lat = lats.get(key(p, k))!;
        const sv = servers.get(key(p, k))!;
        const serverCpu = sv.map((x) => x.cpuUsPerClaim);
        const serverCpuUs = serverCpu.every((x) => x !== undefined) ? { serverCpuUs: quantile(serverCpu as number[], 0.5) } : {};
        claimers[k] = {
          claimsPerSec: spread(rates.get(key(p, k))!), p50Ms: quantile(lat, 0.5), p99Ms: quantile(lat, 0.99), p99WarmMs: quantile(warms.get(key(p, k))!, 0.99),
          cpu: medianCpu(cpus.get(key(p, k))!),
          ...serverCpuUs,
          server: pooledSamples(sv),
          checks: checks.get(key(p, k))!,
        };
      }
      const ratios = (['skip-locked', 'graphile-worker'] as const).map((b) => ({ a: 'mdclaim-pg', b, ratio: perRound(key(p, 'mdclaim-pg'), key(p, b)) }));
      return { ...p, claimers, ratios };
    });
    const [few, many] = [...cfg.procs].sort((a, b) => a - b).slice(-2);
    const small = points[0]!;
    const big = points.at(-1)!;
    progress(`postgres: next on a ${cfg.halfTasks}-task board half claimed, and below ${cfg.blocked} ⏰ tasks`);
    const half = await shape(boardFor(env, 'half'), 'half', halfClaimedText(cfg.halfTasks), cfg.shapeClaims, (t) => /^task \d*[02468]$/.test(t));
    const blocked = await shape(boardFor(env, 'blocked'), 'blocked', blockedAboveText(cfg.blocked, cfg.shapeClaims * 2), cfg.shapeClaims, (t) => t.startsWith('task '));
    const explain: ExplainRow[] = [];
    for (const n of cfg.explainTasks) {
      progress(`postgres: EXPLAIN ANALYZE of next on ${n} tasks, the first half claimed by another`);
      explain.push(await explainNext(boardFor(env, `explain${n}`), env.url, firstHalfClaimedText(n), { tasks: n, blocked: 0 }, cfg.explainRuns));
    }
    const open = cfg.shapeClaims * 2;
    progress(`postgres: EXPLAIN ANALYZE of next below ${cfg.blocked} ⏰ tasks`);
    explain.push(await explainNext(boardFor(env, 'explain-blocked'), env.url, blockedAboveText(cfg.blocked, open), { tasks: cfg.blocked + 1 + open, blocked: cfg.blocked }, cfg.explainRuns));
    return {
      rounds: cfg.rounds,
      points: out,
      bigOverSmall: { tasks: [big.tasks, small.tasks], ratio: perRound(key(big, 'mdclaim-pg'), key({ ...small, procs: 1 }, 'mdclaim-pg')) },
      manyOverFew: { procs: [many!, few!], ratio: perRound(key({ ...small, procs: many! }, 'mdclaim-pg'), key({ ...small, procs: few! }, 'mdclaim-pg')) },
      overOne: cfg.procs.includes(1)
        ? PG_KINDS.flatMap((k) => cfg.procs.filter((n) => n > 1).map((n) => ({ kind: k, procs: n, ratio: perRound(key({ ...small, procs: n }, k), key({ ...small, procs: 1 }, k)) })))
        : [],
      warmed,
      halfClaimed: { tasks: cfg.halfTasks, claims: half.length, p50Ms: quantile(half, 0.5), p99Ms: quantile(half, 0.99) },
      blockedAbove: { tasks: cfg.blocked + 1 + cfg.shapeClaims * 2, blocked: cfg.blocked, claims: blocked.length, p50Ms: quantile(blocked, 0.5), p99Ms: quantile(blocked, 0.99) },
      explain,
      allChecksPassed: [...checks.values()].flat().every((c) => c.ok),
    };
  } finally {
    // The database goes with everything in it (graphile-worker's schema too), also when the case failed.
    for (const b of env.boards.values()) await b.close().catch(() => {});
    await Promise.resolve(env.utils?.release()).catch(() => {});
    await env.sql.end().catch(() => {});
    await db.drop().catch((err: unknown) => progress(`postgres: could not drop the bench database: ${(err as Error).message}`));
  }
}
