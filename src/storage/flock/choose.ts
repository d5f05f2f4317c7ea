import { MdclaimError } from '../../errors.js';
import { loadFsExt } from './fs-ext.js';
import { loadKoffi } from './koffi.js';
import type { FlockFn, FlockProvider } from './types.js';

let chosen: FlockProvider | undefined;

const PROVIDERS: ReadonlyArray<readonly [FlockProvider['name'], () => FlockFn]> = [
  ['fs-ext', loadFsExt],
  ['koffi', loadKoffi],
];

/**
 * Is this a worker thread? Without loading node:worker_threads (it loads the
 * stream modules: ~5 ms of a CLI call that needs none): process.chdir throws
 * ERR_WORKER_UNSUPPORTED_OPERATION there and only there (documented), and
 * elsewhere changing to "." changes nothing.
 */
function inWorkerThread(): boolean {
  try {
    process.chdir('.');
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ERR_WORKER_UNSUPPORTED_OPERATION';
  }
}

const firstLine = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0] ?? '';

/**
 * This process's flock(2), chosen once: fs-ext where it was built (it loads
 * in ~3 ms), else koffi (~15-55 ms to load, so only then). Both make the same
 * system call on the same descriptor, so processes of a compiled install and
 * of one without a compiler exclude each other on one board. Neither: refuse,
 * never a different lock that other claimers would not see. Per thread: a
 * worker thread has its own module state, and so its own choice.
 */
export function flockProvider(): FlockProvider {
  if (chosen) return chosen;
  // fs-ext crashes V8 when loaded in more than one thread: a worker thread takes koffi first.
  const order = inWorkerThread() ? [...PROVIDERS].reverse() : PROVIDERS;
  const why: Partial<Record<FlockProvider['name'], string>> = {};
  for (const [name, load] of order) {
    try {
      chosen = { name, flock: load() };
      return chosen;
    } catch (err) {
      why[name] = firstLine(err);
    }
  }
  throw new MdclaimError(
    'IO',
    `cannot take flock: neither fs-ext (${why['fs-ext']}) nor koffi (${why.koffi}) loads; run \`npm install\` where mdclaim is installed to restore koffi (prebuilt, no compiler needed), or set MDCLAIM_LOCK=mkdir for every process that claims from this board`,
  );
}
