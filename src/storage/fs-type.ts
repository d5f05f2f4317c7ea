import { MdclaimError } from '../errors.js';
import { networkFs } from '../platform/network-fs.js';

/** Refuse a board on a network file system, where a lock taken here does not stop another host. */
export function refuseNetworkFs(path: string, allow: boolean, shown = path): void {
  if (allow) return;
  const name = networkFs(path, process.platform);
  if (name) {
    throw new MdclaimError(
      'UNSUPPORTED_FS',
      `${shown} is on ${name}, where file locks may not exclude other hosts; use PostgreSQL for several hosts, or set MDCLAIM_ALLOW_NFS=1 if every claimer runs on this host`,
      { file: shown },
    );
  }
}
