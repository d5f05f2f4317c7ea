import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a lock, precisely enough to tell that it is gone: a pid alone is
 * reused, so the record also holds the process's start time (in clock ticks
 * since boot, /proc/<pid>/stat field 22) and the boot it started in.
 */
export interface Owner {
  host: string;
  boot: string;
  pid: number;
  start: string;
}

let self: Owner | undefined;

/** This process, read once: its start time and the boot id do not change while it runs. */
export function selfOwner(): Owner {
  self ??= { host: hostName(), boot: bootId(), pid: process.pid, start: startTime(process.pid) ?? '0' };
  return self;
}

/** The owner as one file name: `<host>_<boot>_<pid>_<start>`. */
export function ownerName(o: Owner): string {
  return `${o.host}_${o.boot}_${o.pid}_${o.start}`;
}

export function parseOwner(name: string): Owner | null {
  const m = /^([A-Za-z0-9.-]{1,64})_([0-9a-f]{0,32})_(\d{1,10})_(\d{1,20})$/.exec(name);
  return m ? { host: m[1]!, boot: m[2]!, pid: Number(m[3]), start: m[4]! } : null;
}

/**
 * Is the process that recorded `o` certainly gone? Only then may its lock be
 * taken over. A process on another host, or one this process cannot see, is
 * treated as alive: a lock is never taken from a holder that might still write.
 * A stopped process (SIGSTOP, a frozen cgroup, a paused VM) is alive.
 */
export function isGone(o: Owner): boolean {
  const me = selfOwner();
  if (o.host !== me.host) return false;
  if (me.boot !== '' && o.boot !== '' && o.boot !== me.boot) return true; // that boot is over
  if (o.pid === me.pid) return o.start !== me.start;
  const start = startTime(o.pid);
  if (start === 'zombie') return true;
  if (start !== null) return start !== o.start; // a different process now has that pid
  // No /proc entry (or hidden by hidepid): ask the kernel whether the pid exists at all.
  try {
    process.kill(o.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Field 22 of /proc/<pid>/stat; 'zombie' for a process that has exited but not been reaped; null when unreadable. */
function startTime(pid: number): string | 'zombie' | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // Field 2 is the command name in parentheses and may itself hold spaces and ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'zombie';
  return fields[19] ?? null;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim().replace(/-/g, '');
  } catch {
    return '';
  }
}

function hostName(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64) || 'localhost';
}
