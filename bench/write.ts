import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBoard } from 'mdclaim';
import { mdclaimClaimer, type Claimer } from './claimers.js';
import { interleaved, type InterleavedResult } from './interleave.js';
import { boardText, tempDir } from './util.js';

export interface WriteConfig {
  tasks: number;
  rounds: number;
  warmup: number;
}

export interface WriteResult extends InterleavedResult {
  /** Did `auto` keep the file (in place) and `replace` swap it (new inode), as the comparison assumes? */
  pathsAsExpected: boolean;
}

/** Does one claim on a fresh board keep the file's inode? */
async function keepsInode(write: 'auto' | 'replace', tasks: number): Promise<boolean> {
  const path = join(tempDir('w-probe'), 'tasks.md');
  writeFileSync(path, boardText(tasks));
  const before = statSync(path).ino;
  await openBoard(path, { write }).next({ by: 'probe' });
  return statSync(path).ino === before;
}

/** Case 5: the one-write in-place claim against the temp-file-and-rename claim on the same small board. */
export async function writePaths(cfg: WriteConfig): Promise<WriteResult> {
  const n = cfg.tasks;
  const pathsAsExpected = (await keepsInode('auto', n)) && !(await keepsInode('replace', n));
  const claimers: Claimer[] = [
    mdclaimClaimer('in-place', tempDir('w-ip'), n, { write: 'auto' }),
    mdclaimClaimer('replace', tempDir('w-rp'), n, { write: 'replace' }),
    mdclaimClaimer('in-place-durable', tempDir('w-ipd'), n, { write: 'auto', durable: true }),
    mdclaimClaimer('replace-durable', tempDir('w-rpd'), n, { write: 'replace', durable: true }),
  ];
  const result = await interleaved('write', claimers, n, cfg.rounds, cfg.warmup, [
    ['in-place', 'replace'],
    ['in-place-durable', 'replace-durable'],
  ]);
  return { ...result, pathsAsExpected };
}
