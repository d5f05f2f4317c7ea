import { statfsSync } from 'node:fs';
import { MdclaimError } from '../errors.js';

// statfs(2) f_type values of file systems shared between hosts, where a lock
// taken here may not stop a process on another host (or, for FUSE, where the
// file system's own server decides). GlusterFS mounts through FUSE.
const NETWORK_FS: Record<number, string> = {
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

/** Refuse a board on a network file system, where a lock taken here does not stop another host. */
export function refuseNetworkFs(path: string, allow: boolean, shown = path): void {
  if (allow) return;
  let type: number;
  try {
    type = statfsSync(path).type;
  } catch {
    return; // statfs unsupported here: nothing to judge by
  }
  const name = NETWORK_FS[type >>> 0];
  if (name) {
    throw new MdclaimError(
      'UNSUPPORTED_FS',
      `${shown} is on ${name}, where file locks may not exclude other hosts; use PostgreSQL for several hosts, or set MDCLAIM_ALLOW_NFS=1 if every claimer runs on this host`,
      { file: shown },
    );
  }
}
