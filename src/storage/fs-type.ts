import { statfsSync } from 'node:fs';
import { MdclaimError } from '../errors.js';

// statfs(2) f_type values of file systems where flock(2) does not exclude other hosts.
const NETWORK_FS: Record<number, string> = {
  0x6969: 'NFS',
  0x517b: 'SMB',
  0xff534d42: 'CIFS',
  0xfe534d42: 'SMB2',
};

/** Refuse a board on a network file system, where a lock taken here does not stop another host. */
export function refuseNetworkFs(path: string, allow: boolean): void {
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
      `${path} is on ${name}, where file locks do not exclude other hosts; use PostgreSQL for several hosts, or set MDCLAIM_ALLOW_NFS=1 if every claimer runs on this host`,
      { file: path },
    );
  }
}
