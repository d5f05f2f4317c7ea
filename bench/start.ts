import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import type * as GroupModule from '../dist/runner/group.js';
import type * as WatchdogModule from '../dist/runner/watchdog.js';
import { clock, progress, rotate, spread, toMs, type Spread } from './util.js';

// The runner's pieces are not part of the public API: load them from the build, as the bench loads everything.
const lib = (path: string) => import(new URL(`../../dist/runner/${path}`, import.meta.url).href);

export interface StartConfig {
  pairs: number;
  /** Watchdogs started (one per runner) to time their own start. */
  watchdogs: number;
}

export interface StartResult {
  pairs: number;
  /** `true` spawned bare (own session, output piped), to its exit and its pipes' close. */
  bareMs: Spread;
  /** The same through the gate: a `sh` that waits for the word on fd 3, then execs `true`. */
  gateMs: Spread;
  /** Telling a running watchdog of a group: one line, to the write's callback. */
  armMs: Spread;
  /** gate minus bare, pair by pair, plus the median arm: what each command costs more. */
  addedMs: Spread;
  /** The runner's whole start and end of `true` (gate, watchdog, and the group's end checked in /proc). */
  runnerMs: Spread;
  /** Starting a runner's watchdog (once per runner), to the moment it holds a first group. */
  watchdogStartMs: Spread;
  /** The watchdog's resident set (Linux only). */
  watchdogRssKiB: number | null;
}

const sink = () => new Writable({ write: (_c, _e, done) => done() });

/** Spawn, and resolve with the wall time to its exit and its pipes' close. */
function timed(file: string, args: string[], go: boolean): Promise<number> {
  const t0 = clock();
  const child = spawn(file, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe', ...(go ? ['pipe' as const] : [])] });
  if (go) (child.stdio[3] as Writable).end('go\n');
  return new Promise((resolve) => child.on('close', () => resolve(toMs(clock() - t0))));
}

/** Case 6: what the runner pays to start one command, beyond spawning it, so that no command outlives its runner. */
export async function commandStart(cfg: StartConfig): Promise<StartResult> {
  const { GATE, ProcessGroup } = (await lib('group.js')) as typeof GroupModule;
  const { Watchdog } = (await lib('watchdog.js')) as typeof WatchdogModule;
  const watchdog = new Watchdog(10_000);
  const opts = { env: process.env, cwd: process.cwd(), prefix: '', graceMs: 10_000, stdout: sink(), stderr: sink(), watchdog };
  const cases = {
    bare: () => timed('true', [], false),
    gate: () => timed('/bin/sh', ['-c', GATE, 'mdclaim-run', 'true'], true),
    runner: async () => {
      const t0 = clock();
      const group = await ProcessGroup.start(['true'], opts);
      // The command waits at its gate until the runner says go (after it has renewed the claim).
      group.go();
      await group.exited;
      return toMs(clock() - t0);
    },
  };
  const names = Object.keys(cases) as (keyof typeof cases)[];
  const ms: Record<keyof typeof cases, number[]> = { bare: [], gate: [], runner: [] };
  // Untimed first runs: the page cache holds sh and true, and the watchdog is up.
  for (const n of names) await cases[n]();
  for (let i = 0; i < cfg.pairs; i++) {
    if (i % 50 === 0) progress(`start: round ${i + 1}/${cfg.pairs}`);
    // Each round starts at a different case, so none always runs right after the same peer.
    for (const n of rotate(names, i)) ms[n].push(await cases[n]());
  }
  // A group of its own for each watchdog to hold, as a runner's command would be.
  const target = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  const arms: number[] = [];
  for (let i = 0; i < cfg.pairs; i++) {
    const t0 = clock();
    await watchdog.arm(target.pid!);
    arms.push(toMs(clock() - t0));
    watchdog.disarm(target.pid!);
  }
  await watchdog.close();
  const starts: number[] = [];
  let rss: number | null = null;
  for (let i = 0; i < cfg.watchdogs; i++) {
    const w = new Watchdog(10_000);
    const t0 = clock();
    await w.arm(target.pid!);
    starts.push(toMs(clock() - t0));
    rss ??= watchdogRss();
    w.disarm(target.pid!);
    await w.close();
  }
  target.kill('SIGKILL');
  const arm = spread(arms);
  return {
    pairs: cfg.pairs,
    bareMs: spread(ms.bare),
    gateMs: spread(ms.gate),
    armMs: arm,
    addedMs: spread(ms.gate.map((x, i) => x - ms.bare[i]! + arm.median)),
    runnerMs: spread(ms.runner),
    watchdogStartMs: spread(starts),
    watchdogRssKiB: rss,
  };
}

/** VmRSS of this process's watchdog child, read from /proc. */
function watchdogRss(): number | null {
  if (!existsSync('/proc/self/task')) return null;
  const children = readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  for (const pid of children) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('mdclaim-watchdog')) continue;
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) return Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}
