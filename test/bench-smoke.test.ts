import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, inject, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const BENCH = fileURLToPath(new URL('../bench/dist/run.js', import.meta.url));

type Json = Record<string, any>;

/** Every leaf that should be a figure: a finite number (NaN and Infinity turn into null in JSON). */
function leaves(x: unknown, path = ''): Array<[string, unknown]> {
  if (x === null || typeof x !== 'object') return [[path, x]];
  return Object.entries(x).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
}

describe('bench --quick --json', () => {
  let status: number | null;
  let stderr = '';
  let doc: Json;

  beforeAll(() => {
    // The bench has its own tsconfig; the main build (pretest) has already made dist/ for it to import.
    const build = spawnSync(process.execPath, [TSC, '-p', 'bench/tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_')));
    // The PostgreSQL cases run in this suite's own database, never in one someone else may own.
    const pgUrl = process.env['MDCLAIM_PG_URL'] ?? inject('pgUrl');
    if (pgUrl !== '') env['MDCLAIM_PG_URL'] = pgUrl;
    // A budget against a hung bench, not a speed limit: a quick run takes 20-60 s on two cores shared with other test
    // runs, and four to five minutes at a load average of 20-30.
    // maxBuffer: well above what it prints (about 80 kB of JSON, a few kB of progress), so output is never cut short.
    const r = spawnSync(process.execPath, [BENCH, '--quick', '--json'], { cwd: ROOT, encoding: 'utf8', env, timeout: 600_000, maxBuffer: 256 << 20 });
    status = r.status;
    stderr = r.stderr;
    // A bench that failed or was stopped says how: its exit, the spawn's error, and its progress up to then.
    const how = `bench --quick --json: exit ${String(r.status)}, signal ${String(r.signal)}, ${r.error ? `error ${r.error.message}, ` : ''}${r.stdout.length} bytes on stdout; stderr ends:\n${stderr.slice(-4000)}`;
    expect(status, how).toBe(0);
    try {
      doc = JSON.parse(r.stdout) as Json;
    } catch (err) {
      throw new Error(`${(err as Error).message}: ${how}`);
    }
  }, 620_000);

  it('exits 0 with one JSON document, progress on stderr', () => {
    expect(status, stderr).toBe(0);
    expect(doc.meta.quick).toBe(true);
    expect(stderr).toMatch(/\[bench\] case uncontended/);
  });

  it('has every case, every figure a finite number', () => {
    const r = doc.results;
    // The PostgreSQL case joins when its server answers (the bench says so on stderr when it does not).
    const pgUp = !/PostgreSQL left out: /.test(stderr);
    expect(Object.keys(r).sort()).toEqual(['cli', 'contended', 'contendedMany', 'contendedWarm', ...(pgUp ? ['postgres'] : []), 'scaling', 'start', 'uncontended', 'write']);
    for (const [path, v] of leaves(r)) {
      if (typeof v === 'string' || typeof v === 'boolean') continue;
      expect(typeof v === 'number' && Number.isFinite(v), `results${path} = ${String(v)}`).toBe(true);
    }
    const claimers = Object.keys(r.uncontended.claimers);
    expect(claimers).toEqual(expect.arrayContaining(['mdclaim', 'mdclaim-durable', 'sqlite-normal', 'sqlite-full', 'lockfile', 'floor']));
    for (const c of Object.values<Json>(r.uncontended.claimers)) expect(c.claimsPerSec.median).toBeGreaterThan(0);
    expect(r.uncontended.ratios.length).toBeGreaterThanOrEqual(2);
    for (const k of ['mdclaim', 'floor', 'sqlite', 'lockfile']) expect(r.contended.claimers[k].claimsPerSec.median).toBeGreaterThan(0);
    for (const k of ['mdclaim', 'floor']) expect(r.contended.claimers[k].worstMs).toBeGreaterThanOrEqual(r.contended.claimers[k].p99Ms);
    // Where the time goes: every claimer's CPU per claim, and mdclaim's and the floor's claims split by phase.
    for (const c of Object.values<Json>(r.contended.claimers)) expect(c.cpu.totalUs).toBeGreaterThan(0);
    for (const k of ['mdclaim', 'floor']) {
      const split = r.contended.split[k];
      expect(Object.keys(split)).toEqual(['lock', 'read', 'decide', 'write', 'verify', 'release']);
      for (const [phase, us] of Object.entries<number>(split)) expect(us, `${k} ${phase}`).toBeGreaterThanOrEqual(0);
      expect(split.read + split.write).toBeGreaterThan(0);
    }
    // Long-lived processes, warmed on boards of their own: the hand-off between holders, and mdclaim's lock waits per claim.
    for (const w of r.contendedWarm) {
      expect(w.warmClaims).toBeGreaterThan(0);
      expect(Object.keys(w.claimers)).toEqual(['mdclaim', 'floor']);
      for (const k of ['mdclaim', 'floor']) expect(w.handOff[k].heldMeanUs).toBeGreaterThan(0);
      expect(w.handOff.mdclaim.triesPerClaim).toBeGreaterThanOrEqual(1);
    }
    expect(r.contended.cores).toBeGreaterThan(0);
    // The PostgreSQL board joins when its server answers (the bench says so on stderr when it does not).
    const pg = 'postgres' in r.contended.claimers ? ['postgres/sqlite', 'mdclaim/postgres'] : [];
    // The flock through koffi races beside fs-ext's where koffi loads.
    const koffi = 'mdclaim-koffi' in r.contended.claimers ? ['mdclaim-koffi/floor', 'mdclaim-koffi/mdclaim'] : [];
    expect(r.contended.ratios.map((x: Json) => `${x.a}/${x.b}`)).toEqual(['mdclaim/floor', ...koffi, 'mdclaim/sqlite', 'mdclaim/lockfile', ...pg]);
    if (pg.length === 0) expect(stderr).toMatch(/PostgreSQL left out: /);
    expect(r.scaling.sizes.length).toBeGreaterThanOrEqual(2);
    for (const s of r.scaling.sizes) expect(s.claimP50Ms > 0 && s.reapMedianMs > 0).toBe(true);
    expect(r.cli.ratio.median).toBeGreaterThan(0);
    expect(r.cli.nextPeakRssMiB).toBeGreaterThan(0);
    // Each big board in both shapes: list items and ADW's bare lines.
    expect(r.cli.big.map((b: Json) => `${b.tasks} ${b.shape}`)).toEqual(['2000 list', '2000 bare', '10000 list', '10000 bare']);
    for (const s of r.scaling.sizes) expect(s.bare.claimP50Ms > 0 && s.bareOverList.claim > 0).toBe(true);
    for (const b of r.cli.big) expect(b.ratio.median).toBeGreaterThan(0);
    expect(r.write.ratios.map((x: Json) => `${x.a}/${x.b}`)).toEqual(['in-place/replace', 'in-place-durable/replace-durable']);
    for (const k of ['bareMs', 'gateMs', 'armMs', 'runnerMs', 'watchdogStartMs']) expect(r.start[k].median, k).toBeGreaterThan(0);
  });

  it('races the PostgreSQL board beside the SKIP LOCKED claimer and graphile-worker, every figure positive', () => {
    const p = doc.results.postgres;
    if (p === undefined) {
      expect(stderr).toMatch(/postgres: left out/);
      return;
    }
    expect(p.points.map((x: Json) => `${x.procs}x${x.tasks}`)).toEqual(['1x200', '4x200', '1x1000']);
    for (const x of p.points) {
      expect(Object.keys(x.claimers)).toEqual(['mdclaim-pg', 'skip-locked', 'graphile-worker']);
      for (const c of Object.values<Json>(x.claimers)) {
        expect(c.claimsPerSec.median).toBeGreaterThan(0);
        expect(c.p50Ms).toBeGreaterThan(0);
        expect(c.p99Ms).toBeGreaterThanOrEqual(c.p50Ms);
        for (const chk of c.checks) expect(chk, chk.problems.join('; ')).toMatchObject({ ok: true, problems: [] });
        // Where the time goes: the claimers' CPU per claim, and their backends sampled.
        expect(c.cpu.totalUs).toBeGreaterThan(0);
        expect(c.server.samples).toBeGreaterThan(0);
      }
      expect(x.ratios.map((y: Json) => `${y.a}/${y.b}`)).toEqual(['mdclaim-pg/skip-locked', 'mdclaim-pg/graphile-worker']);
      for (const y of x.ratios) expect(y.ratio.median).toBeGreaterThan(0);
    }
    expect(p.bigOverSmall.ratio.median).toBeGreaterThan(0);
    expect(p.manyOverFew.ratio.median).toBeGreaterThan(0);
    expect(p.overOne.map((x: Json) => `${x.kind} ${x.procs}`)).toEqual(['mdclaim-pg 4', 'skip-locked 4', 'graphile-worker 4']);
    for (const s of [p.halfClaimed, p.blockedAbove]) expect(s.claims > 0 && s.p50Ms > 0 && s.p99Ms >= s.p50Ms).toBe(true);
    // EXPLAIN ANALYZE of the board's own next: the boards with their first half claimed, then the one below the ⏰ tasks.
    expect(p.explain.map((x: Json) => `${x.tasks} ${x.blocked}`)).toEqual(['200 0', '1000 0', '241 200']);
    for (const x of p.explain) {
      for (const k of ['executionMs', 'planningMs', 'buffers', 'topRows']) expect(Number.isFinite(x[k]), `explain ${x.tasks} ${k} = ${x[k]}`).toBe(true);
      expect(x.executionMs > 0 && x.planningMs >= 0 && x.buffers > 0 && x.runs > 0).toBe(true);
      expect(x.topRows).toBe(1);
    }
    expect(p.allChecksPassed).toBe(true);
  });

  it('passes every drain check: each task claimed once, none lost, none doubled', () => {
    const c = doc.results.contended;
    expect(c.allChecksPassed).toBe(true);
    for (const k of ['mdclaim', 'floor', 'sqlite', 'lockfile']) {
      for (const chk of c.claimers[k].checks) {
        expect(chk, `${k}: ${chk.problems.join('; ')}`).toMatchObject({ ok: true, claimed: c.tasks, logged: c.tasks, duplicates: 0, lost: 0, wrongHolder: 0 });
      }
    }
    expect(doc.results.write.pathsAsExpected).toBe(true);
    expect(doc.checks).toEqual({ ok: true, failures: [] });
  });

  it('gives a verdict (met, missed or not run) for every target', () => {
    expect(doc.targets.map((t: Json) => t.id)).toEqual(['1a', '1b', '2a', '2b', '2c', '2d', '2e', '2f', '2g', '2h', '3a', '3b', '3c', '3d', '3e', '3f', '3g', '4a', '4b', '4c', '4d', '4e', '7a', '7b', '7c', '7d', '7e', '7f', '7g', '7h', '7i', '7j']);
    for (const t of doc.targets) expect([true, false, null]).toContain(t.met);
  });
});
