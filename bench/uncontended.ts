import { floorClaimer, lockfileClaimer, mdclaimClaimer, pgClaimer, sqliteClaimer, type Claimer } from './claimers.js';
import { interleaved, type InterleavedResult } from './interleave.js';
import { tempDir } from './util.js';

export interface UncontendedConfig {
  tasks: number;
  rounds: number;
  warmup: number;
}

/** Case 1: one process claiming from a board nobody else touches, each way of claiming, durability off and on. */
export async function uncontended(cfg: UncontendedConfig, withPg: boolean): Promise<InterleavedResult> {
  const n = cfg.tasks;
  const claimers: Claimer[] = [
    mdclaimClaimer('mdclaim', tempDir('u-md'), n, { durable: false }),
    sqliteClaimer('sqlite-normal', tempDir('u-sqln'), n, 'NORMAL'),
    lockfileClaimer('lockfile', tempDir('u-lf'), n, false),
    floorClaimer('floor', tempDir('u-fl'), n, false),
    mdclaimClaimer('mdclaim-durable', tempDir('u-mdd'), n, { durable: true }),
    sqliteClaimer('sqlite-full', tempDir('u-sqlf'), n, 'FULL'),
    lockfileClaimer('lockfile-durable', tempDir('u-lfd'), n, true),
    floorClaimer('floor-durable', tempDir('u-fld'), n, true),
    // The PostgreSQL board: synchronous_commit off beside the non-durable claimers, on beside the durable ones.
    ...(withPg ? [pgClaimer('postgres', n, false), pgClaimer('postgres-durable', n, true)] : []),
  ];
  const pgPairs: Array<[string, string]> = withPg
    ? [
        ['mdclaim', 'postgres'],
        ['postgres', 'sqlite-normal'],
        ['mdclaim-durable', 'postgres-durable'],
        ['postgres-durable', 'sqlite-full'],
      ]
    : [];
  try {
    return await interleaved('uncontended', claimers, n, cfg.rounds, cfg.warmup, [
      ['mdclaim', 'sqlite-normal'],
      ['mdclaim', 'lockfile'],
      ['mdclaim', 'floor'],
      ['mdclaim-durable', 'sqlite-full'],
      ['mdclaim-durable', 'lockfile-durable'],
      ['mdclaim-durable', 'floor-durable'],
      ...pgPairs,
    ]);
  } finally {
    for (const c of claimers) await c.close();
  }
}
