import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';

// What the lock tests look at from outside: an outside flock(1) holder, the
// kernel's queue in /proc/locks, and the children a waiting process starts.

/** An outside flock(1) on `dir`, held until `release()` (its stdin closes). */
export async function outsideHolder(dir: string) {
  const child = spawn('flock', ['-x', dir, 'sh', '-c', 'echo locked; cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const gone = new Promise((r) => child.on('close', r));
  await new Promise((r) => child.stdout.once('data', r));
  return { release: () => child.stdin.end(), gone, pid: child.pid! };
}

/** Blocked flock requests ("->" lines of /proc/locks) queued on `dir` in the kernel. */
export function queuedOn(dir: string): number {
  const { ino } = statSync(dir);
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((l) => l.includes('->') && l.includes(' FLOCK ') && new RegExp(`:${ino} `).test(l)).length;
}

/** Wait for a condition, checked every 5 ms, up to `ms`. */
export async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Whether a non-blocking exclusive flock on `dir` from another process fails: someone holds it. */
export const heldElsewhere = (dir: string) => spawnSync('flock', ['-n', '-x', dir, 'true']).status !== 0;

/** Children of `pid` by command name (perl: queue helpers; flock: one-wait flock(1) children, or an outside holder). */
export function children(pid: number, name: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (m && m[1] === name && Number(m[2]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export const hasFlock1 = spawnSync('flock', ['--version']).status === 0;
