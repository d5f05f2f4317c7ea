import type { Conn } from './db.js';
import { sql as boards } from './migrations/001-boards.js';
import { after as declaredPaths, sql as pathLocks } from './migrations/002-path-locks.js';
import { sql as lockLines } from './migrations/003-lock-lines.js';
import { sql as attempts } from './migrations/004-attempts.js';
import { sql as keptState } from './migrations/005-kept-state.js';
import { sql as blocker } from './migrations/006-blocker.js';
import { sql as pathCall } from './migrations/007-path-call.js';
import { sql as historyPaths } from './migrations/008-history-paths.js';
import { after as afterItems, sql as afterRule } from './migrations/009-after.js';

// The PostgreSQL board's schema, as numbered migrations, one file each under
// migrations/: a database holds version N when migrations 1..N have run.
// Never edit a migration that has shipped; add the next one (its file, and
// its line here). task_view, the rules every claim and view reads, is as the
// last migration that creates it states it (009-after.ts). schema.sql
// beside this file is the live schema whole, dumped by npm run schema.

export { LOCK_CLASS, NOTIFY_CHANNEL, PATHS_LOCK_CLASS, READY_LOCK_CLASS } from './constants.js';

export const MIGRATIONS: readonly string[] = [boards, pathLocks, lockLines, attempts, keptState, blocker, pathCall, historyPaths, afterRule];

/** What a migration does after its statements, in the same transaction (by index, as MIGRATIONS). */
export const AFTER: ReadonlyArray<((c: Conn) => Promise<void>) | undefined> = [undefined, declaredPaths, undefined, undefined, undefined, undefined, undefined, undefined, afterItems];

export const LATEST = MIGRATIONS.length;
