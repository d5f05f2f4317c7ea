import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cli } from './cli.js';
import { contended } from './contended.js';
import { scalingSvg } from './svg.js';
import { scaling } from './scaling.js';
import { commandStart } from './start.js';
import { storageTable, tables, targets, toMarkdown, toText, type Results } from './report.js';
import { uncontended } from './uncontended.js';
import { progress, removeTempDirs } from './util.js';
import { dropPgBoards, PG_URL, pgUnreachable } from './pg.js';
import { postgres } from './postgres.js';
import { writePaths } from './write.js';

const CASES = ['uncontended', 'contended', 'scaling', 'cli', 'write', 'start', 'postgres'] as const;

/** A bad command line: reported as one message and exit status 2, without a stack. */
class UsageError extends Error {}
type Case = (typeof CASES)[number];

const USAGE = `usage: npm run bench -- [--json] [--quick] [--only=${CASES.join(',')}] [--no-docs]
  --json     print one JSON document on stdout (progress stays on stderr)
  --quick    tiny boards and few rounds (the smoke test's mode); never touches docs/
  --only=    run only these cases (comma-separated); docs/ is only rewritten by a full run of every case
  --no-docs  do not rewrite docs/benchmarks.md and docs/scaling.svg`;

function parse(argv: string[]) {
  let json = false;
  let quick = false;
  let docs = true;
  let only: Case[] = [...CASES];
  for (const a of argv) {
    if (a === '--json') json = true;
    else if (a === '--quick') quick = true;
    else if (a === '--no-docs') docs = false;
    else if (a.startsWith('--only=')) {
      const names = a.slice('--only='.length).split(',').filter(Boolean);
      const bad = names.filter((n) => !(CASES as readonly string[]).includes(n));
      if (bad.length > 0 || names.length === 0) throw new UsageError(`unknown case ${bad.join(', ') || '(none)'}\n${USAGE}`);
      only = names as Case[];
    } else if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else throw new UsageError(`unknown option ${a}\n${USAGE}`);
  }
  return { json, quick, docs: docs && !quick && only.length === CASES.length, only };
}

/** Sizes and round counts: the full run takes a few minutes on two cores; quick stays well under the smoke test's budget. */
function config(quick: boolean) {
  return quick
    ? {
        uncontended: { tasks: 50, rounds: 3, warmup: 1 },
        // Four processes and then three, not eight and four: the smoke test checks that every figure is made, on two cores
        // shared with the rest of the suite, where eight claimers cost twice the time and prove nothing more. Each
        // process still makes more claims than the warm figures leave out, so those are never empty.
        contended: { tasks: 100, workers: 4, rounds: 1 },
        contendedMany: { tasks: 90, workers: 3, rounds: 1 },
        // Kept small so the smoke test's run takes about what it did: one warm run, no 16-process one. 80 tasks for 2
        // processes: one of them makes more than WARM_CLAIMS, so the figures past them are never empty.
        contendedWarm: { tasks: 80, workers: [2], rounds: 1, warmClaims: 10 },
        contended16: null,
        scaling: { sizes: [100, 1_000, 10_000], rounds: 2, claims: [5, 5, 3], reaps: [1, 1, 1] },
        cli: { pairs: 4, rssTasks: 10_000, rssRuns: 1, bigSizes: [2_000, 10_000], bigPairs: 1 },
        write: { tasks: 50, rounds: 3, warmup: 1 },
        start: { pairs: 10, watchdogs: 2 },
        postgres: { tasks: 200, procs: [1, 4], bigTasks: 1_000, bigClaims: 200, rounds: 1, halfTasks: 1_000, blocked: 200, shapeClaims: 20, explainTasks: [200, 1_000], explainRuns: 5, warmClaims: 5 },
      }
    : {
        uncontended: { tasks: 50, rounds: 40, warmup: 3 },
        contended: { tasks: 1_000, workers: 8, rounds: 5 },
        contendedMany: { tasks: 1_000, workers: 32, rounds: 3 },
        contendedWarm: { tasks: 1_000, workers: [1, 8], rounds: 5, warmClaims: 300 },
        contended16: { tasks: 1_000, workers: 16, rounds: 3 },
        scaling: { sizes: [100, 1_000, 10_000, 100_000], rounds: 7, claims: [50, 50, 50, 15], reaps: [10, 10, 5, 2] },
        cli: { pairs: 40, rssTasks: 100_000, rssRuns: 3, bigSizes: [2_000, 10_000, 100_000], bigPairs: 40 },
        write: { tasks: 50, rounds: 40, warmup: 3 },
        start: { pairs: 200, watchdogs: 20 },
        postgres: { tasks: 1_000, procs: [1, 8, 32], bigTasks: 10_000, bigClaims: 1_000, rounds: 5, halfTasks: 20_000, blocked: 4_950, shapeClaims: 50, explainTasks: [1_000, 10_000, 100_000], explainRuns: 10, warmClaims: 30 },
      };
}

function machine() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  let nproc = cpus().length;
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    // no coreutils nproc: os.cpus() is the next best count
  }
  return { date: new Date().toISOString().slice(0, 19) + 'Z', nproc, cpu: model, node: process.version, platform: `${process.platform} ${process.arch}` };
}

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
const SVG = fileURLToPath(new URL('../../docs/scaling.svg', import.meta.url));
const PG_GUIDE = fileURLToPath(new URL('../../docs/postgres-guide.md', import.meta.url));
const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';

/** Put `block` between the markers of a file, leaving the prose around it alone. */
function replaceBlock(file: string, begin: string, end: string, block: string): void {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const a = old.indexOf(begin);
  const b = old.indexOf(end);
  const body = `${begin}\n${block}\n${end}`;
  writeFileSync(file, a >= 0 && b > a ? old.slice(0, a) + body + old.slice(b + end.length) : `${old.trimEnd()}\n\n${body}\n`);
}

/** Replace the generated blocks of docs/benchmarks.md (every table) and docs/postgres-guide.md (the storages), leaving the prose alone. */
function writeDocs(results: Results, meta: ReturnType<typeof machine>): void {
  const when = `${meta.date}, ${meta.nproc} × ${meta.cpu}, Node ${meta.node}, ${meta.platform}`;
  replaceBlock(DOC, BEGIN, END, [`Latest full run: ${when}.`, '', toMarkdown(tables(results))].join('\n'));
  const storages = storageTable(results);
  if (storages) {
    replaceBlock(PG_GUIDE, '<!-- pg-bench:start -->', '<!-- pg-bench:end -->', [`Latest full run (${when}); every table: \`docs/benchmarks.md\` in the source repository.`, '', toMarkdown([storages])].join('\n'));
  }
  if (results.scaling) {
    const caption = ['claims on a half-claimed board; reap of a board with 10% stale claims', `${meta.date}, ${meta.nproc} × ${meta.cpu}, Node ${meta.node}`];
    writeFileSync(SVG, scalingSvg(results.scaling, caption));
  }
}

async function main(): Promise<number> {
  const opts = parse(process.argv.slice(2));
  // The figures are for the defaults: no MDCLAIM_* setting of the caller's may pick another lock or write path.
  for (const k of Object.keys(process.env)) if (k.startsWith('MDCLAIM_')) delete process.env[k];
  const cfg = config(opts.quick);
  const meta = machine();
  const results: Results = {};
  const t0 = Date.now();
  const why = await pgUnreachable();
  const pg = why === null;
  if (!pg) progress(`PostgreSQL left out: ${PG_URL} is unreachable (${why}); set MDCLAIM_PG_URL or start the server`);
  try {
    for (const name of opts.only) {
      progress(`case ${name}`);
      switch (name) {
        case 'uncontended':
          results.uncontended = await uncontended(cfg.uncontended, pg);
          break;
        case 'contended':
          results.contended = await contended({ ...cfg.contended, pg });
          results.contendedMany = await contended({ ...cfg.contendedMany, pg });
          // The file board's hand-off: long-lived processes (warmed on a board of their own), alone and contending, and 16 fresh ones.
          results.contendedWarm = [];
          for (const workers of cfg.contendedWarm.workers) {
            // Beside mdclaim's waits, those on a pool thread only and those of its perl helper (the fallbacks, and how every wait went before).
            results.contendedWarm.push(await contended({ ...cfg.contendedWarm, workers, kinds: cfg.contended16 ? ['mdclaim', 'mdclaim-pool', 'mdclaim-helper', 'floor'] : ['mdclaim', 'floor'], pg: false }));
          }
          if (cfg.contended16) results.contended16 = await contended({ ...cfg.contended16, kinds: ['mdclaim', 'mdclaim-helper', 'mdclaim-koffi', 'floor'], pg: false });
          break;
        case 'scaling':
          results.scaling = await scaling(cfg.scaling);
          break;
        case 'cli':
          results.cli = cli(cfg.cli);
          break;
        case 'write':
          results.write = await writePaths(cfg.write);
          break;
        case 'start':
          results.start = await commandStart(cfg.start);
          break;
        case 'postgres':
          if (pg) results.postgres = await postgres(cfg.postgres);
          else progress('postgres: left out, its server is unreachable');
          break;
      }
      removeTempDirs();
    }
  } finally {
    // The bench's boards go even when a case fails.
    await dropPgBoards();
  }
  progress(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const failures: string[] = [];
  for (const run of [results.contended, results.contendedMany, results.contended16, ...(results.contendedWarm ?? [])]) {
    if (!run || run.allChecksPassed) continue;
    for (const [k, f] of Object.entries(run.claimers)) {
      for (const c of f!.checks) if (!c.ok) failures.push(`contended (${run.workers}) ${k}: ${c.problems.join('; ')}`);
    }
  }
  for (const p of results.postgres?.points ?? []) {
    for (const [k, f] of Object.entries(p.claimers)) {
      for (const c of f.checks) if (!c.ok) failures.push(`postgres (${p.procs} processes, ${p.tasks} tasks) ${k}: ${c.problems.join('; ')}`);
    }
  }
  if (results.write && !results.write.pathsAsExpected) failures.push('write: in-place did not keep the file, or replace did not swap it');
  const doc = {
    meta: { ...meta, quick: opts.quick, cases: opts.only, config: cfg },
    results,
    targets: targets(results),
    checks: { ok: failures.length === 0, failures },
  };
  if (opts.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  else process.stdout.write(`mdclaim benchmarks — ${meta.date}, ${meta.nproc} × ${meta.cpu}, Node ${meta.node}${opts.quick ? ' (quick)' : ''}\n\n${toText(tables(results))}\n`);
  if (opts.docs) {
    writeDocs(results, meta);
    progress('wrote docs/benchmarks.md and docs/scaling.svg');
  }
  for (const f of failures) process.stderr.write(`[bench] CHECK FAILED: ${f}\n`);
  return failures.length === 0 ? 0 : 1;
}

process.on('exit', removeTempDirs);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    removeTempDirs();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
