import { lockInUse, lockName } from '../storage/lock-in-use.js';
import { finding, type Finding } from './finding.js';

/** The lock a claim on a markdown board would take here, and whether other installs take the same one. */
export function checkLock(): Finding {
  const l = lockInUse();
  if (l.error !== undefined) return finding('lock', 'fail', l.error, l.kind === 'flock' ? 'npm install where mdclaim is installed (koffi needs no compiler), or MDCLAIM_LOCK=mkdir for every process that claims from the board' : 'set MDCLAIM_LOCK to flock or mkdir, or unset it');
  if (l.kind === 'mkdir') {
    return finding('lock', 'warn', `${lockName(l)}: only processes with the same setting see this lock; one without it takes flock(2) and claims past it`, 'set MDCLAIM_LOCK=mkdir for every process that claims from the board (cron, hooks, MCP clients), or unset it everywhere');
  }
  if (l.kind === 'none') return finding('lock', 'fail', 'MDCLAIM_LOCK=none: no lock at all, two claimers can take one task', 'unset MDCLAIM_LOCK');
  const other = l.provider === 'fs-ext' ? 'koffi (a prebuilt install)' : 'fs-ext (a compiled install)';
  return finding('lock', 'ok', `${lockName(l)}; an install using ${other} takes the same lock: they exclude each other on one board`);
}
