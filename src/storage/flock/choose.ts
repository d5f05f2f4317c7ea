import { MdclaimError } from '../../errors.js';
import { loadFsExt } from './fs-ext.js';
import { loadKoffi } from './koffi.js';
import type { FlockProvider } from './types.js';

let chosen: FlockProvider | undefined;

const firstLine = (err: unknown): string => String((err as Error)?.message ?? err).split('\n')[0] ?? '';

/**
 * This process's flock(2), chosen once: fs-ext where it was built (it loads
 * in ~3 ms), else koffi (~15-55 ms to load, so only then). Both make the same
 * system call on the same descriptor, so processes of a compiled install and
 * of one without a compiler exclude each other on one board. Neither: refuse,
 * never a different lock that other claimers would not see.
 */
export function flockProvider(): FlockProvider {
  if (chosen) return chosen;
  let fsExtWhy: string;
  try {
    chosen = { name: 'fs-ext', flock: loadFsExt() };
    return chosen;
  } catch (err) {
    fsExtWhy = firstLine(err);
  }
  try {
    chosen = { name: 'koffi', flock: loadKoffi() };
    return chosen;
  } catch (err) {
    throw new MdclaimError(
      'IO',
      `cannot take flock: neither fs-ext (${fsExtWhy}) nor koffi (${firstLine(err)}) loads; run \`npm install\` where mdclaim is installed to restore koffi (prebuilt, no compiler needed), or set MDCLAIM_LOCK=mkdir for every process that claims from this board`,
      { cause: err },
    );
  }
}
