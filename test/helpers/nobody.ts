import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { CLI } from './cli.js';

// Tests of what another user may do run the CLI as nobody (setpriv, as root).
// Whether that can work here is asked of the thing itself: nobody runs this
// checkout's CLI. A checkout in a folder nobody may enter (a root's mktemp -d
// is 0700), or a node only root can reach, answers no, and those tests skip
// saying why.

const NOBODY = ['--reuid=65534', '--regid=65534'];

/** Why nobody cannot run this checkout's CLI, or '' when it can. */
export const nobodyCannot: string = probe();

function probe(): string {
  if (process.getuid?.() !== 0) return 'becoming nobody needs root';
  const r = spawnSync('setpriv', [...NOBODY, '--clear-groups', process.execPath, CLI, '--version'], { encoding: 'utf8', timeout: 120_000 });
  if (r.error) return `setpriv cannot run (${r.error.message})`;
  if (r.status === 0) return '';
  const lines = r.stderr.split('\n').map((l) => l.trim());
  const why = lines.find((l) => /^\w*Error\b|EACCES|denied/.test(l)) ?? lines.find((l) => l !== '') ?? `exit ${r.status}`;
  return `nobody cannot run ${CLI} (${why}): the checkout or node sits where nobody may enter`;
}

/** The CLI run as nobody, in no group but `groups` (comma-separated ids) when given. */
export function asNobody(args: readonly string[], groups = ''): SpawnSyncReturns<string> {
  return spawnSync('setpriv', [...NOBODY, groups ? `--groups=${groups}` : '--clear-groups', process.execPath, CLI, ...args], { encoding: 'utf8', timeout: 120_000 });
}
