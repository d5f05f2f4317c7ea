import { realpathSync, statfsSync } from 'node:fs';
import { childProcess } from '../builtins.js';

// statfs(2) f_type values (Linux) of file systems shared between hosts, where
// a lock taken here may not stop a process on another host (or, for FUSE,
// where the file system's own server decides). GlusterFS mounts through FUSE.
const NETWORK_MAGIC: Record<number, string> = {
  0x6969: 'NFS',
  0x517b: 'SMB',
  0xff534d42: 'CIFS',
  0xfe534d42: 'SMB2',
  0x65735546: 'a FUSE file system (sshfs, GlusterFS, …)',
  0x01021997: '9p',
  0x00c36400: 'CephFS',
  0x0bd00bd0: 'Lustre',
  0x5346414f: 'AFS',
  0x6b414653: 'AFS',
  0x47504653: 'GPFS',
  0x01161970: 'GFS2',
  0x7461636f: 'OCFS2',
};

// The same file systems by the type names mount(8) prints (macOS, FreeBSD and Linux).
const NETWORK_NAMES: Array<[RegExp, string]> = [
  [/^nfs\d?$/, 'NFS'],
  [/^(smbfs|smb\d?|cifs)$/, 'SMB'],
  [/^afpfs$/, 'AFP'],
  [/^(webdav|davfs)$/, 'WebDAV'],
  [/^(fuse(fs|blk)?|fuse\..+|osxfuse|macfuse|fuse-t)$/, 'a FUSE file system (sshfs, GlusterFS, …)'],
  [/^9p$/, '9p'],
  [/^ceph$/, 'CephFS'],
  [/^lustre$/, 'Lustre'],
  [/^(afs|openafs)$/, 'AFS'],
  [/^gpfs$/, 'GPFS'],
  [/^gfs2$/, 'GFS2'],
  [/^ocfs2$/, 'OCFS2'],
];

/**
 * The network file system `dir` is on, by name, or null (local, or nothing to
 * judge by). Linux: statfs's magic number. macOS and the BSDs, where f_type
 * is no magic number and Node does not give f_fstypename: the type mount(8)
 * prints for the mount the real path is under (one spawn, a few ms, once per
 * board object).
 */
export function networkFs(dir: string, platform: NodeJS.Platform): string | null {
  try {
    if (platform === 'linux') return NETWORK_MAGIC[statfsSync(dir).type >>> 0] ?? null;
    // mount(8) lives in /sbin on macOS and the BSDs, which a user's PATH may lack.
    const env = { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/sbin:/usr/sbin:/bin:/usr/bin` };
    const mounts = childProcess().execFileSync('mount', [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env });
    const type = mountTypeOf(realpathSync.native(dir), parseMounts(mounts));
    return type === null ? null : networkName(type);
  } catch {
    return null; // no statfs, no mount(8): nothing to judge by
  }
}

/** A network file system's name for a mount(8) type, or null for a local one. */
export function networkName(type: string): string | null {
  const t = type.toLowerCase();
  for (const [re, name] of NETWORK_NAMES) if (re.test(t)) return name;
  return null;
}

export interface Mount {
  at: string;
  type: string;
}

/**
 * mount(8)'s table, as macOS and the BSDs print it (`dev on /at (type, opts)`)
 * or as Linux does (`dev on /at type T (opts)`, spaces escaped as \040).
 */
export function parseMounts(out: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of out.split('\n')) {
    const linux = / on (.+) type (\S+) \([^)]*\)$/.exec(line);
    const bsd = linux ? null : / on (.+) \(([^,)]+)(?:,[^)]*)?\)$/.exec(line);
    const m = linux ?? bsd;
    if (m) mounts.push({ at: m[1]!.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))), type: m[2]!.trim() });
  }
  return mounts;
}

/** The type of the mount `path` (a real path) is under: the deepest mount point that contains it; the last mounted wins a tie. */
export function mountTypeOf(path: string, mounts: readonly Mount[]): string | null {
  let best: Mount | null = null;
  for (const m of mounts) {
    const under = m.at === '/' || path === m.at || path.startsWith(m.at.endsWith('/') ? m.at : m.at + '/');
    if (under && (!best || m.at.length >= best.at.length)) best = m;
  }
  return best?.type ?? null;
}
