import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, realpathSync, symlinkSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MdclaimError } from '../src/index.js';
import { mountTypeOf, networkFs, networkName, parseMounts } from '../src/platform/network-fs.js';
import { bootId, parseBootTime, parsePs, startTime } from '../src/platform/process-start.js';
import { fileSizeLimit, parseUlimit } from '../src/platform/size-limit.js';
import { isSymlinkRefusal } from '../src/platform/symlink.js';
import { refuseCommandOn, refuseFileBoardOn } from '../src/platform/windows.js';
import { CLI } from './helpers/cli.js';
import { fixture, track } from './helpers/procs.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// Each platform difference sits in one module of src/platform; its portable
// path (the one macOS and FreeBSD take) runs here on Linux too.

const OTHERS: NodeJS.Platform[] = ['darwin', 'freebsd'];

describe('network file systems by name (macOS and FreeBSD: mount(8)’s table)', () => {
  const MACOS = [
    '/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)',
    'devfs on /dev (devfs, local, nobrowse)',
    '/dev/disk3s5 on /System/Volumes/Data (apfs, local, journaled, nobrowse, protect)',
    'map auto_home on /System/Volumes/Data/home (autofs, automounted, nobrowse)',
    'nas:/export/work on /Volumes/work (nfs, nodev, nosuid, mounted by ana)',
    '//ana@nas._smb._tcp.local/Team Share on /Volumes/Team Share (smbfs, nodev, nosuid, mounted by ana)',
    'ana@host:/srv on /Users/ana/remote (macfuse, nodev, nosuid, synchronous, mounted by ana)',
  ].join('\n');
  const FREEBSD = ['/dev/ada0p2 on / (ufs, local, journaled soft-updates)', 'devfs on /dev (devfs)', 'nas:/export on /mnt/nfs (nfs)', '/dev/fuse on /home/u/s (fusefs, local, nosuid, mounted by u)'].join('\n');
  const LINUX = ['/dev/sda1 on / type ext4 (rw,relatime)', 'nas:/x on /mnt/my\\040share type nfs4 (rw)', 'u@h:/ on /home/u/s type fuse.sshfs (rw,nosuid)'].join('\n');

  it.each([
    ['/Users/ana/tasks', null, MACOS],
    ['/Volumes/work/board', 'NFS', MACOS],
    ['/Volumes/Team Share/tasks', 'SMB', MACOS],
    ['/Volumes/workshop', null, MACOS],
    ['/Users/ana/remote/x', 'a FUSE file system (sshfs, GlusterFS, …)', MACOS],
    ['/mnt/nfs/b', 'NFS', FREEBSD],
    ['/home/u/s', 'a FUSE file system (sshfs, GlusterFS, …)', FREEBSD],
    ['/usr/home', null, FREEBSD],
    ['/mnt/my share/t', 'NFS', LINUX],
    ['/home/u/s/t', 'a FUSE file system (sshfs, GlusterFS, …)', LINUX],
    ['/home/u', null, LINUX],
  ])('%s is on %s', (path, name, table) => {
    const type = mountTypeOf(path, parseMounts(table));
    expect(type === null ? null : networkName(type)).toBe(name);
  });

  it('reads this machine’s own mount table to the type findmnt(8) gives (the top of a stacked mount), and judges it as statfs does', () => {
    const dirs = [dirname(boardFile('x')), '/', '/proc', '/dev/shm', process.cwd()].map((d) => realpathSync(d));
    const table = parseMounts(execFileSync('mount', { encoding: 'utf8' }));
    for (const d of dirs) {
      expect(mountTypeOf(d, table)).toBe(execFileSync('findmnt', ['-n', '-o', 'FSTYPE', '-T', d], { encoding: 'utf8' }).trim().split('\n').at(-1));
      for (const p of OTHERS) expect(networkFs(d, p)).toBe(networkFs(d, 'linux'));
    }
  });
});

describe('a process’s start time and the boot (no /proc on macOS and FreeBSD: ps and sysctl)', () => {
  it('gives this process one start time each time, near its real start, and none for a pid nobody has', () => {
    const a = startTime(process.pid, 'darwin');
    expect(a).toMatch(/^\d+$/);
    expect(startTime(process.pid, 'freebsd')).toBe(a);
    // The same moment /proc gives: boot time plus the start in clock ticks (100 a second on Linux).
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
    expect(Math.abs(Number(a) - (btime + Number(startTime(process.pid, 'linux')) / 100))).toBeLessThanOrEqual(1);
    expect(startTime(2 ** 22 + 17, 'darwin')).toBe(null);
  });

  it('tells a process that exited but was not reaped (a zombie) from a live one', async () => {
    // A perl that forks a child which exits at once, and sleeps without reaping it.
    const program = '$SIG{CHLD} = "DEFAULT"; $| = 1; if (my $p = fork) { print "$p\\n"; sleep 30 } else { exit 0 }';
    const sh = track(spawn('perl', ['-e', program], { stdio: ['ignore', 'pipe', 'ignore'] }));
    try {
      const pid = Number(await new Promise<string>((r) => sh.stdout.once('data', (d) => r(String(d)))));
      const deadline = Date.now() + 120_000;
      while (startTime(pid, 'darwin') !== 'zombie' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(startTime(pid, 'darwin')).toBe('zombie');
      expect(startTime(pid, 'linux')).toBe('zombie');
      expect(startTime(sh.pid!, 'darwin')).toMatch(/^\d+$/);
    } finally {
      sh.kill('SIGKILL');
    }
  });

  it('reads ps and sysctl output as they print it', () => {
    expect(parsePs('Ss   Tue Dec  1 22:10:28 2026\n')).toBe(String(Date.UTC(2026, 11, 1, 22, 10, 28) / 1000));
    expect(parsePs('Z+   Tue Dec  1 22:10:28 2026\n')).toBe('zombie');
    expect(parsePs('')).toBe(null);
    expect(parseBootTime('{ sec = 1764627028, usec = 5024 } Mon Dec  1 22:10:28 2025\n')).toBe('1764627028005024');
    expect(parseBootTime('sysctl: unknown oid')).toBe('');
    // No kern.boottime on Linux: unknown, which the owner checks treat as "same boot, ask the process".
    expect(bootId('darwin')).toMatch(/^\d*$/);
    expect(bootId('linux')).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('the file size limit (no /proc/self/limits on macOS and FreeBSD: sh’s ulimit -f)', () => {
  const limits = (set: string) => {
    const code = `import { fileSizeLimit } from ${JSON.stringify(new URL('../dist/platform/size-limit.js', import.meta.url).href)}; console.log(JSON.stringify(['linux', 'darwin', 'freebsd'].map((p) => String(fileSizeLimit(p)))))`;
    return JSON.parse(execFileSync('sh', ['-c', `${set} exec "$0" --input-type=module -e "$1"`, process.execPath, code], { encoding: 'utf8' })) as string[];
  };

  it('reads the same limit both ways, in bytes, and none as Infinity', () => {
    expect(limits('ulimit -f 2048;')).toEqual(['1048576', '1048576', '1048576']);
    expect(limits('ulimit -f unlimited 2>/dev/null;')).toEqual(['Infinity', 'Infinity', 'Infinity']);
    expect(parseUlimit('unlimited\n')).toBe(Infinity);
    expect(parseUlimit('8\n')).toBe(4096);
    expect(fileSizeLimit('linux')).toBe(fileSizeLimit('darwin'));
  });
});

describe('refusing a symlink opened with O_NOFOLLOW', () => {
  it('knows each platform’s errno for it: ELOOP here and on macOS, EMLINK on FreeBSD', () => {
    const file = boardFile('x');
    const link = join(dirname(file), 'link.md');
    symlinkSync(file, link);
    const code = (() => {
      try {
        openSync(link, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (err) {
        return (err as NodeJS.ErrnoException).code;
      }
    })();
    expect(isSymlinkRefusal(code, 'linux')).toBe(true);
    expect(isSymlinkRefusal('ELOOP', 'darwin')).toBe(true);
    expect(isSymlinkRefusal('EMLINK', 'freebsd')).toBe(true);
    expect(isSymlinkRefusal('EMLINK', 'linux')).toBe(false);
    expect(isSymlinkRefusal('ENOENT', 'freebsd')).toBe(false);
  });
});

describe('Windows', () => {
  it('refuses a markdown board, run and lock there, and nowhere else', () => {
    expect(() => refuseFileBoardOn('win32', 'tasks.md')).toThrow(MdclaimError);
    expect(() => refuseFileBoardOn('win32', 'tasks.md')).toThrow(/PostgreSQL board .*WSL/);
    expect(() => refuseCommandOn('win32', 'run')).toThrow(/mdclaim run is not supported on Windows; run it in WSL/);
    for (const p of ['linux', ...OTHERS] as NodeJS.Platform[]) {
      expect(() => refuseFileBoardOn(p, 'tasks.md')).not.toThrow();
      expect(() => refuseCommandOn(p, 'lock')).not.toThrow();
    }
  });

  const asWindows = (args: string[]) => spawnSync(process.execPath, ['--import', fixture('as-windows.mjs'), CLI, ...args], { encoding: 'utf8' });

  it.each([
    [['next', '--by', 'w'], /^error\[UNSUPPORTED_PLATFORM\]: .*tasks\.md: a markdown board is not supported on Windows \(no flock\(2\)\); use a PostgreSQL board \(a postgres:\/\/ URL\) or run mdclaim in WSL\n$/],
    [['lock', '--', 'true'], /^error\[UNSUPPORTED_PLATFORM\]: .*(markdown board|mdclaim lock) is not supported on Windows.*WSL\n$/],
    [['run', '--by', 'w', '--', 'true'], /^error\[UNSUPPORTED_PLATFORM\]: .*(markdown board|mdclaim run) is not supported on Windows.*WSL\n$/],
  ])('the CLI refuses `%s` there with exit 1 and one line, the board unchanged', (args, message) => {
    const file = boardFile('- [ ] one\n');
    const r = asWindows([...args.slice(0, 1), '--file', file, ...args.slice(1)]);
    expect(r.stderr).toMatch(message);
    expect([r.status, r.stdout]).toEqual([1, '']);
    expect(bytesOf(file).equals(Buffer.from('- [ ] one\n'))).toBe(true);
  });

  it('refuses run on a PostgreSQL board there too, before connecting', () => {
    const r = asWindows(['run', '--file', 'postgres://127.0.0.1:1/none', '--by', 'w', '--', 'true']);
    expect(r.stderr).toBe('error[UNSUPPORTED_PLATFORM]: mdclaim run is not supported on Windows; run it in WSL\n');
    expect(r.status).toBe(1);
  });
});
