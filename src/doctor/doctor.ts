import { dirname, resolve } from 'node:path';
import { isPgUrl } from '../pg/url.js';
import { checkFile } from './file.js';
import { checkHooks } from './hooks.js';
import { checkLock } from './lock.js';
import { checkPg } from './pg.js';
import type { Finding } from './finding.js';

export type { Finding, Verdict } from './finding.js';

/**
 * Check the setup a board's claimers rely on, changing nothing: for a
 * markdown board the lock, the file, its file system, permissions and
 * reading; for PostgreSQL the connection, schema and pooler; and for both
 * the git hooks of the repository the board (or the working directory) is in.
 */
export async function doctor(location: string, options: { now?: number; cwd?: string } = {}): Promise<Finding[]> {
  const cwd = options.cwd ?? process.cwd();
  if (isPgUrl(location)) return [...(await checkPg(location)), ...(await checkHooks(cwd))];
  return [checkLock(), ...checkFile(location, options.now ?? Date.now()), ...(await checkHooks(dirname(resolve(cwd, location))))];
}

/** Whether something would fail: the exit status's question. */
export const failing = (findings: readonly Finding[]): boolean => findings.some((f) => f.verdict === 'fail');
