import type { Command } from './types.js';

// One file per command; the registry is the only list (their flags and summaries are in ../help.ts).
export { add } from './add.js';
export { claim } from './claim.js';
export { done } from './done.js';
export { edit } from './edit.js';
export { exportBoard as export } from './export.js';
export { fail } from './fail.js';
export { heartbeat } from './heartbeat.js';
export { history } from './history.js';
export { importBoard as import } from './import.js';
export { list } from './list.js';
export { lock } from './lock.js';
export { migrate } from './migrate.js';
export { next } from './next.js';
export { paths } from './paths.js';
export { pathsCheck } from './paths-check.js';
export { pathsLock } from './paths-lock.js';
export { pathsUnlock } from './paths-unlock.js';
export { reap } from './reap.js';
export { release } from './release.js';
export { reopen } from './reopen.js';
export { run } from './run.js';
export type { Command };
