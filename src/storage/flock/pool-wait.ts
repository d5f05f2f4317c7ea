import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** How a blocking wait ended: the lock is ours, it was cancelled (or failed) and holds nothing. */
export type PoolResult = 'held' | 'cancelled';

/** One blocking flock(2) under way on a pool thread: `cancel` interrupts it (its callback then says 'cancelled', or 'held' if it won first). */
export interface PoolWait {
  cancel(): void;
}

interface Native {
  flock: { async(fd: number, op: number, cb: (err: unknown, r: number) => void): void };
  errno(): number;
  tgkill(pid: number, tid: number, sig: number): number;
  signal: number;
  /** flock's system call number on this machine, as /proc/<pid>/task/<tid>/syscall shows it. */
  nr: number;
}

/** flock(2)'s system call number, by architecture (the numbers /proc shows). */
const FLOCK_NR: Partial<Record<string, number>> = { x64: 73, arm64: 32 };
const SA_SIZE = 152;

let native: Native | null | undefined;

/**
 * Set up once: koffi's flock, and a signal that interrupts a blocking call
 * without ending anything. Its handler is getpid (async-signal-safe, and
 * harmless whatever it is given), installed without SA_RESTART, so a flock
 * blocked on the thread it is sent to returns EINTR. Linux with glibc on
 * x86-64 or arm64 only (the struct sigaction layout, the system call
 * numbers); null anywhere else, or when the signal already has a handler.
 */
function load(): Native | null {
  if (native !== undefined) return native;
  native = null;
  const nr = FLOCK_NR[process.arch];
  if (process.platform !== 'linux' || nr === undefined) return null;
  try {
    const koffi = require('koffi') as {
      load(p: null): { func(s: string): (...a: unknown[]) => number; symbol(name: string): unknown };
      address(p: unknown): bigint;
      errno(): number;
    };
    const lib = koffi.load(null);
    const rtmax = lib.func('int __libc_current_sigrtmax()')();
    const signal = rtmax - 5;
    const sigaction = lib.func('int sigaction(int sig, const uint8_t *act, _Out_ uint8_t *old)');
    const old = Buffer.alloc(SA_SIZE);
    if (sigaction(signal, null, old) !== 0 || old.readBigUInt64LE(0) !== 0n) return null;
    const act = Buffer.alloc(SA_SIZE);
    act.writeBigUInt64LE(koffi.address(lib.symbol('getpid')), 0);
    // sa_mask (8..136) empty, sa_flags (136) 0: no SA_RESTART.
    if (sigaction(signal, act, null) !== 0) return null;
    const tgkill = lib.func('int tgkill(int tgid, int tid, int sig)');
    const flock = lib.func('int flock(int fd, int op)') as unknown as Native['flock'];
    native = { flock, errno: () => koffi.errno(), tgkill: (p, t, s) => tgkill(p, t, s), signal, nr };
  } catch {
    native = null;
  }
  return native;
}

/** Threads of this process now blocked in flock(2) on `fd`. */
function blockedOn(n: Native, fd: number): number[] {
  const found: number[] = [];
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return found;
  }
  for (const tid of tids) {
    let s: string;
    try {
      s = readFileSync(`/proc/self/task/${tid}/syscall`, 'latin1');
    } catch {
      continue;
    }
    const [call, arg] = s.split(' ');
    if (Number(call) === n.nr && Number(arg) === fd) found.push(Number(tid));
  }
  return found;
}

/** Is the blocking wait available here (loading koffi on the first call)? */
export function poolWaitAvailable(): boolean {
  return load() !== null;
}

/**
 * flock(2) on `fd`, blocking, on a libuv pool thread: the kernel wakes that
 * thread as the lock is let go, and its answer comes to the event loop at
 * once, where a helper process's answer costs a second process's wake-up and
 * a pipe. `done` is called once, with 'held' or 'cancelled'. Cancel finds the
 * thread blocked on `fd` in /proc and interrupts it with the signal load()
 * installed, until the call has returned (it may not have reached flock yet).
 */
export function poolWait(fd: number, exclusive: boolean, done: (r: PoolResult) => void): PoolWait | null {
  const n = load();
  if (n === null) return null;
  let returned = false;
  let timer: NodeJS.Timeout | undefined;
  n.flock.async(fd, exclusive ? 2 : 1, (err, r) => {
    returned = true;
    clearTimeout(timer);
    pending.delete(wait);
    done(!err && r === 0 ? 'held' : 'cancelled');
  });
  const interrupt = () => {
    if (returned) return;
    for (const tid of blockedOn(n, fd)) n.tgkill(process.pid, tid, n.signal);
  };
  const wait: PoolWait = {
    cancel() {
      if (returned || timer) return;
      interrupt();
      // Not in flock yet, or just back in it after a signal that came between (flock is not restarted, but a wait may be queued behind busy pool threads): again until it returns.
      const again = () => {
        interrupt();
        if (!returned) timer = setTimeout(again, 1);
      };
      timer = setTimeout(again, 1);
    },
  };
  pending.add(wait);
  exitHook();
  return wait;
}

/** Waits under way, cancelled at exit: a pool thread blocked in flock would hold the process's exit until the lock came free. */
const pending = new Set<PoolWait>();
let hooked = false;

function exitHook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    const n = native;
    if (!n) return;
    // At exit the event loop no longer runs: interrupt every blocked flock now, and again until none is left (each returns at once).
    for (let round = 0; round < 1000 && pending.size > 0; round++) {
      const fds = new Set<number>();
      for (const t of readdirSync('/proc/self/task')) {
        try {
          const [call, arg] = readFileSync(`/proc/self/task/${t}/syscall`, 'latin1').split(' ');
          if (Number(call) === n.nr) (fds.add(Number(arg)), n.tgkill(process.pid, Number(t), n.signal));
        } catch {
          // the thread has gone
        }
      }
      if (fds.size === 0) break;
    }
  });
}
