import type { ContendedResult } from './contended.js';
import { PHASES } from './fs-split.js';
import type { PgKind, PostgresResult } from './postgres.js';
import { num, type Table } from './table.js';
import { WARM_CLAIMS } from './util.js';

// Where a claim's time goes, as the report shows it: tables of CPU per claim and of a file claim's
// phases, and the reasons a missed target is given from them.

const SPLIT_NAMES: Record<(typeof PHASES)[number], string> = {
  lock: 'lock wait', read: 'open + read', decide: 'scan + decide + check (JS)', write: 'write', verify: 'read back + board check', release: 'close, unlock, result',
};

const orDash = (x: number | undefined): string => (x === undefined ? '–' : num(x));
const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** CPU per claim of every contended claimer, and the phases of mdclaim's and the floor's claims. */
export function contendedTimeTables(c: ContendedResult): Table[] {
  const out: Table[] = [];
  out.push({
    title: `2. Where the time goes (${c.workers} processes): the claimer processes' CPU per claim, median over the runs (a lock helper's own CPU not counted)`,
    head: ['claimer', 'CPU µs/claim', 'user', 'system', `first ${WARM_CLAIMS} claims of a process`, 'its claims past them', 'p99 / floor', 'worst / floor'],
    rows: Object.entries(c.claimers).map(([k, v]) => [
      k, num(v!.cpu.totalUs), num(v!.cpu.userUs), num(v!.cpu.systemUs), orDash(v!.cpu.firstUs), orDash(v!.cpu.restUs),
      c.claimers.floor ? `${(v!.p99Ms / c.claimers.floor.p99Ms).toFixed(2)}×` : '–', c.claimers.floor ? `${(v!.worstMs / c.claimers.floor.worstMs).toFixed(2)}×` : '–',
    ]),
    right: [1, 2, 3, 4, 5, 6, 7],
  });
  const ho = Object.entries(c.handOff ?? {});
  if (ho.length > 0) {
    const per = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(2));
    out.push({
      title: `2. The hand-off (${c.workers} ${c.warmClaims > 0 ? 'long-lived' : 'fresh'} processes, ${c.cores} cores, the split run): µs from one holder's last call under the lock to the next holder's first touch of the board, the time a claim holds the lock, and mdclaim's lock waits per claim`,
      head: ['claimer', 'hand-off p50 µs', 'mean', 'p99', 'held p50 µs', 'held mean', 'waits/claim', 'blocks of its thread/claim', 'waits off it (2nd wake-up)/claim', 'polls/claim', 'tries/claim'],
      rows: ho.map(([k, h]) => [k, num(h!.gapP50Us), num(h!.gapMeanUs), num(h!.gapP99Us), num(h!.heldP50Us), num(h!.heldMeanUs), per(h!.waitsPerClaim), per(h!.blocksPerClaim), per(h!.wakeUpsPerClaim), per(h!.pollsPerClaim), per(h!.triesPerClaim)]),
      right: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    });
  }
  const sp = Object.entries(c.split);
  if (sp.length > 0) {
    out.push({
      title: `2. A claim's time, phase by phase (${c.workers} processes, a run of its own with each claim split by the file system calls it makes; mean µs over the claims past each process's first ${WARM_CLAIMS})`,
      head: ['claimer', ...PHASES.map((k) => SPLIT_NAMES[k]), 'from the open to the return'],
      rows: sp.map(([k, x]) => [k, ...PHASES.map((p) => num(x![p])), num(x!.read + x!.decide + x!.write + x!.verify + x!.release)]),
      right: [1, 2, 3, 4, 5, 6, 7],
    });
  }
  return out;
}

/** CPU per claim on both sides and the backends' samples at each count of processes, and the rates over one process's. */
export function postgresTimeTables(pgr: PostgresResult): Table[] {
  const out: Table[] = [];
  out.push({
    title: '7. Where the time goes: CPU per claim in the claimer processes and in their server backends (median over the rounds), and what the backends were doing (sampled every 10 ms, all rounds)',
    head: ['processes', 'claimer', 'client CPU µs/claim', 'user / system', `client, first ${WARM_CLAIMS} / past them`, 'server CPU µs/claim', 'backends on CPU', 'waiting for their client', 'waiting on the server', 'of which for a lock'],
    rows: pgr.points.filter((p) => p.claims === p.tasks).flatMap((p) => Object.entries(p.claimers).map(([k2, v]) => {
      const sh = v.server.share;
      const waiting = Object.entries(sh).filter(([w]) => w !== 'CPU' && w !== 'idle').sort((a, b) => b[1] - a[1]);
      const waits = waiting.reduce((n, [, x]) => n + x, 0);
      return [
        String(p.procs), k2, num(v.cpu.totalUs), `${num(v.cpu.userUs)} / ${num(v.cpu.systemUs)}`, `${orDash(v.cpu.firstUs)} / ${orDash(v.cpu.restUs)}`,
        orDash(v.serverCpuUs), pct(sh['CPU'] ?? 0), pct(sh['idle'] ?? 0),
        `${pct(waits)}${waiting.length > 0 ? ` (${waiting.slice(0, 2).map(([w, x]) => `${w} ${pct(x)}`).join(', ')})` : ''}`, pct(v.server.lockWaiting),
      ];
    })),
    right: [0, 2, 5, 6, 7, 9],
  });
  out.push({
    title: '7. Claims/s with more processes over claims/s with one, round by round, 1,000 tasks',
    head: ['claimer', 'processes', 'median', 'IQR'],
    rows: [
      ...pgr.overOne.map((x) => [x.kind, `${x.procs} / 1`, `${x.ratio.median.toFixed(2)}×`, `${x.ratio.q25.toFixed(2)}–${x.ratio.q75.toFixed(2)}`]),
      ...(pgr.warmed ? [[`mdclaim-pg, each process warmed by ${pgr.warmed.claims} claims first`, `${pgr.warmed.procs[1]} / ${pgr.warmed.procs[0]}`, `${pgr.warmed.ratio.median.toFixed(2)}×`, `${pgr.warmed.ratio.q25.toFixed(2)}–${pgr.warmed.ratio.q75.toFixed(2)}`]] : []),
    ],
    right: [2, 3],
  });
  return out;
}

/** Why 8 fresh processes drain slower than they would warm: the warmed rounds' rates and CPU against the fresh ones'. */
export function warmedWhy(p: PostgresResult | undefined): string | undefined {
  const w = p?.warmed;
  const fresh = p?.points.find((x) => x.procs === w?.procs[1] && x.tasks === 1_000 && x.claims === 1_000)?.claimers['mdclaim-pg'];
  if (!w || !fresh) return undefined;
  return `with every process warmed by ${w.claims} claims from a board of its own first, ${w.procs[1]} processes drain at ${w.ratio.median.toFixed(2)}× the rate of ${w.procs[0]} round by round (IQR ${w.ratio.q25.toFixed(2)}–${w.ratio.q75.toFixed(2)}; the rounds' median rates ${num(w.claimsPerSec[1].median)} and ${num(w.claimsPerSec[0].median)} claims/s), at ${num(w.cpu[1].totalUs)} µs of client CPU a claim; fresh, a process pays ${orDash(fresh.cpu.firstUs)} µs a claim over its first ${WARM_CLAIMS} (V8 compiling the claim path as it first runs) against ${orDash(fresh.cpu.restUs)} past them, which with ${w.procs[1]} processes of ${Math.round(1000 / w.procs[1])} claims each is ${pct(((fresh.cpu.firstUs ?? 0) - (fresh.cpu.restUs ?? 0)) * WARM_CLAIMS * w.procs[1] / 1000 / fresh.cpu.totalUs)} of the client CPU`;
}

/** The file board against the floor with 8 processes, in CPU per claim and in the time of each phase: what its rate and tail follow from. */
export function contendedWhy(c: ContendedResult | undefined, kind: 'mdclaim' | 'mdclaim-koffi' = 'mdclaim'): string | undefined {
  const m = c?.claimers[kind]?.cpu;
  const f = c?.claimers.floor?.cpu;
  if (!m || !f) return undefined;
  const ms = c!.split.mdclaim;
  const fs = c!.split.floor;
  const phases = ms && fs
    ? `; a claim past its process's first ${WARM_CLAIMS}, from the board's open to the return, took ${num(ms.read + ms.decide + ms.write + ms.verify + ms.release)} µs against the floor's ${num(fs.read + fs.decide + fs.write + fs.verify + fs.release)} (scan, decision and check ${num(ms.decide)} µs against its ${num(fs.decide)}, write ${num(ms.write)} against ${num(fs.write)}, read back ${num(ms.verify)})`
    : '';
  const h = c!.handOff?.mdclaim;
  const hf = c!.handOff?.floor;
  const handOff = h && hf ? `; the hand-off between holders ${num(h.gapMeanUs)} µs mean (p99 ${num(h.gapP99Us)}) against the floor's ${num(hf.gapMeanUs)} (p99 ${num(hf.gapP99Us)}), ${(h.wakeUpsPerClaim ?? 0).toFixed(2)} waits off the claiming thread a claim` : '';
  return `CPU per claim, this run: ${kind} ${num(m.totalUs)} µs (user ${num(m.userUs)}, system ${num(m.systemUs)}; ${orDash(m.firstUs)} µs a claim over each process's first ${WARM_CLAIMS}, ${orDash(m.restUs)} past them) against the floor's ${num(f.totalUs)} µs (user ${num(f.userUs)}, system ${num(f.systemUs)})${phases}${handOff}: with ${c!.workers} processes on ${c!.cores} cores the claims queue on the lock and on the cores, so the rate and the tail follow those ratios`;
}

/** The PostgreSQL board's CPU per claim on both sides at `procs` processes, against the plain claimer's. */
export function postgresWhy(p: PostgresResult | undefined, procs: number): string | undefined {
  const at = p?.points.find((x) => x.procs === procs && x.tasks === 1_000 && x.claims === 1_000);
  if (!at) return undefined;
  const side = (k: PgKind) => {
    const v = at.claimers[k];
    return `client ${num(v.cpu.totalUs)} µs (${orDash(v.cpu.firstUs)} over a process's first ${WARM_CLAIMS} claims, ${orDash(v.cpu.restUs)} past them) + server ${v.serverCpuUs === undefined ? '?' : num(v.serverCpuUs)} µs`;
  };
  const sh = at.claimers['mdclaim-pg'].server.share;
  return `CPU per claim, this run, ${procs} process${procs === 1 ? '' : 'es'}: mdclaim-pg ${side('mdclaim-pg')}, the plain claimer ${side('skip-locked')}; mdclaim-pg's backends were on CPU ${pct(sh['CPU'] ?? 0)} of the samples, waiting for their clients ${pct(sh['idle'] ?? 0)}, waiting for a lock ${pct(at.claimers['mdclaim-pg'].server.lockWaiting)}`;
}
