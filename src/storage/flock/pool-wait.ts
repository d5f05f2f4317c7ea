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
  flock: { async(fd: number, op: number, cb: (err: unknown, r: number) => void): void; (fd: number, op: number): number };
  errno(): number;
  tgkill(pid: number, tid: number, sig: number): number;
  signal: number;
  /** flock's system call number on this machine, as /proc/<pid>/task/<tid>/syscall shows it. */
  nr: number;
  /** Arm this thread's timer (ms; 0 disarms): when it fires, the signal goes to this thread. Null where it cannot be made. */
  arm: ((ms: number) => boolean) | null;
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
    const handler = koffi.address(lib.symbol('getpid'));
    if (sigaction(signal, null, old) !== 0) return null;
    // Installed already (by another thread of this process: each has its own module state), or not at all.
    if (old.readBigUInt64LE(0) !== handler) {
      if (old.readBigUInt64LE(0) !== 0n) return null;
      const act = Buffer.alloc(SA_SIZE);
      act.writeBigUInt64LE(handler, 0);
      // sa_mask (8..136) empty, sa_flags (136) 0: no SA_RESTART.
      if (sigaction(signal, act, null) !== 0) return null;
    }
    const tgkill = lib.func('int tgkill(int tgid, int tid, int sig)');
    const flock = lib.func('int flock(int fd, int op)') as unknown as Native['flock'];
    native = { flock, errno: () => koffi.errno(), tgkill: (p, t, s) => tgkill(p, t, s), signal, nr, arm: threadTimer(lib, signal) };
  } catch {
    native = null;
  }
  return native;
}

/** SIGEV_THREAD_ID: a timer's signal goes to the one thread named. */
const SIGEV_THREAD_ID = 4;

/**
 * A timer of this thread's (timer_create with SIGEV_THREAD_ID) that sends
 * `signal` to it: a blocking call it makes when the timer fires returns
 * EINTR. Returns the function that arms it for `ms` (0 disarms).
 */
function threadTimer(lib: { func(s: string): (...a: unknown[]) => number }, signal: number): ((ms: number) => boolean) | null {
  try {
    const tid = lib.func('int gettid()')();
    const create = lib.func('int timer_create(int clock, const uint8_t *sev, _Out_ uint8_t *timer)');
    const settime = lib.func('int timer_settime(uint64_t timer, int flags, const uint8_t *spec, uint8_t *old)');
    const sev = Buffer.alloc(64);
    sev.writeInt32LE(signal, 8);
    sev.writeInt32LE(SIGEV_THREAD_ID, 12);
    sev.writeInt32LE(tid, 16);
    const id = Buffer.alloc(8);
    // CLOCK_MONOTONIC is 1.
    if (create(1, sev, id) !== 0) return null;
    const timer = id.readBigUInt64LE(0);
    const spec = Buffer.alloc(32);
    return (ms) => {
      spec.writeBigInt64LE(BigInt(Math.floor(ms / 1000)), 16);
      spec.writeBigInt64LE(BigInt(Math.round((ms % 1000) * 1e6)), 24);
      return settime(timer, 0, spec, null) === 0;
    };
  } catch {
    return null;
  }
}

/**
 * flock(2) on `fd`, blocking this thread for at most `ms`: true once held,
 * false when the time ran out first (the lock not taken) or this cannot be
 * done here. While it blocks, nothing else of this thread runs; the kernel
 * wakes it as the lock is let go, and it goes on with the lock at once.
 */
export function blockFor(fd: number, exclusive: boolean, ms: number): boolean {
  const n = load();
  if (n === null || n.arm === null || ms <= 0) return false;
  if (!n.arm(ms)) return false;
  let r: number;
  try {
    r = n.flock(fd, exclusive ? 2 : 1);
  } finally {
    n.arm(0);
  }
  return r === 0;
}

/** Whether blockFor can block this thread here (loads koffi the first time). */
export function canBlock(): boolean {
  const n = load();
  return n !== null && n.arm !== null;
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
