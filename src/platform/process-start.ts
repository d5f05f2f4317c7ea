import { readFileSync } from 'node:fs';
import { childProcess } from '../builtins.js';

/** When a process started, as digits that differ between two processes that had one pid; 'zombie' once it has exited; null when unknown. */
export type StartTime = string | 'zombie' | null;

/**
 * When `pid` started. Linux: field 22 of /proc/<pid>/stat (clock ticks since
 * boot). Elsewhere (no /proc): ps(1)'s state and start, in seconds since the
 * epoch. Every process of one host uses the same way, so their records compare.
 */
export function startTime(pid: number, platform: NodeJS.Platform): StartTime {
  return platform === 'linux' ? fromProc(pid) : fromPs(pid);
}

function fromProc(pid: number): StartTime {
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

function fromPs(pid: number): StartTime {
  let out: string;
  try {
    // C locale and UTC: the same text for the same process whoever asks.
    out = childProcess().execFileSync('ps', ['-o', 'stat=,lstart=', '-p', String(pid)], {
      encoding: 'latin1',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' },
    });
  } catch {
    return null; // exit 1: no such process (or no ps)
  }
  return parsePs(out);
}

/** `ps -o stat=,lstart=`'s line (`Ss   Tue Dec  1 22:10:28 2026`, in UTC) as a StartTime. */
export function parsePs(out: string): StartTime {
  const m = /^\s*(\S+)\s+(.+?)\s*$/.exec(out);
  if (!m) return null;
  if (m[1]!.startsWith('Z')) return 'zombie';
  const ms = Date.parse(`${m[2]!.replace(/\s+/g, ' ')} UTC`);
  return Number.isFinite(ms) ? String(ms / 1000) : null;
}

/**
 * This boot, as hex digits, or '' when unknown. Linux: the kernel's boot id.
 * macOS and the BSDs: the boot time sysctl(8) gives (`{ sec = …, usec = … }`).
 */
export function bootId(platform: NodeJS.Platform): string {
  try {
    if (platform === 'linux') return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim().replace(/-/g, '');
    return parseBootTime(childProcess().execFileSync('sysctl', ['-n', 'kern.boottime'], { encoding: 'latin1', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return '';
  }
}

/** `sysctl -n kern.boottime`'s `{ sec = 1764627028, usec = 5024 } …` as `<sec><usec, 6 digits>`. */
export function parseBootTime(out: string): string {
  const m = /sec = (\d+), usec = (\d+)/.exec(out);
  return m ? `${m[1]}${m[2]!.padStart(6, '0')}` : '';
}
