import { hostname } from 'node:os';
import { bootId, startTime } from '../platform/process-start.js';

/**
 * Who holds a lock, precisely enough to tell that it is gone: a pid alone is
 * reused, so the record also holds the process's start time (see
 * platform/process-start: /proc on Linux, ps elsewhere) and the boot it started in.
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
  self ??= { host: hostName(), boot: bootId(process.platform), pid: process.pid, start: startTime(process.pid, process.platform) ?? '0' };
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
  const start = startTime(o.pid, process.platform);
  if (start === 'zombie') return true;
  if (start !== null) return start !== o.start; // a different process now has that pid
  // Not found (no /proc entry, hidden by hidepid, or no ps): ask the kernel whether the pid exists at all.
  try {
    process.kill(o.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function hostName(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64) || 'localhost';
}
