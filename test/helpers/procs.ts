import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The fixtures tests started that have not exited yet, and whether each leads a process group of its own. */
const running = new Map<ChildProcess, boolean>();

/** SIGKILL every fixture still running, its whole group where it leads one (test/setup.ts does it after each file); returns what it killed. */
export function killStarted(): string[] {
  const killed = [...running.keys()].map((c) => `${c.pid} ${c.spawnargs.join(' ')}`);
  for (const [c, group] of running) {
    try {
      if (group) process.kill(-c.pid!, 'SIGKILL');
      else c.kill('SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  running.clear();
  return killed;
}

/**
 * Have a process a test spawned killed after the test file, however the test
 * ends; `group`: it was spawned `detached` and leads a group, killed whole
 * (a shell loop and whatever it started at the time).
 */
export function track<C extends ChildProcess>(child: C, opts: { group?: boolean } = {}): C {
  if (child.pid === undefined) return child; // it never started
  running.set(child, opts.group === true);
  child.on('exit', () => running.delete(child));
  return child;
}

/**
 * Start a node script as a real process; `done` settles when it exits. Its
 * stdin is a pipe from this process, never written: a fixture that loops
 * until told to stop ends when it sees that pipe's end, the test process gone.
 */
export function start(script: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Exit> } {
  const child = track(spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function lines(out: string, prefix: string): string[] {
  return out.split('\n').filter((l) => l.startsWith(prefix + ' ')).map((l) => l.slice(prefix.length + 1));
}

/**
 * Start processes that race: each says "ready" (fixtures/barrier.mjs) and
 * waits; once all have, the barrier file appears and they start together,
 * however loaded the machine is.
 */
export async function startTogether(runs: { script: string; args: string[]; env?: Record<string, string> }[]): Promise<ReturnType<typeof start>[]> {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { scratchDir } = await import('./tmp.js');
  const gate = join(scratchDir('mdclaim-barrier-'), 'go');
  const started = runs.map((r) => start(r.script, r.args, { ...r.env, MDCLAIM_TEST_BARRIER: gate }));
  const ready = started.map(
    (s) =>
      new Promise<void>((resolve) => {
        let out = '';
        const check = (d: Buffer) => {
          out += d;
          if (out.includes('ready\n')) resolve();
        };
        s.child.stdout!.on('data', check);
        s.done.then(() => resolve());
      }),
  );
  await Promise.all(ready);
  writeFileSync(gate, '');
  return started;
}
