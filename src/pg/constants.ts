// Names the schema and the code share: advisory-lock classes and the channel runners listen on.

/** The advisory-lock class of every mdclaim lock (`mdcl`), paired with 0 for migrations or a board's id. */
export const LOCK_CLASS = 0x6d64636c;
/** The advisory-lock class of a board's path holds (`mdpa`), paired with the board's id (see docs/postgres.md). */
export const PATHS_LOCK_CLASS = 0x6d647061;
/** The advisory-lock class that keeps a board's [⏰] readiness one writer at a time (`mdrd`), paired with the board's id. */
export const READY_LOCK_CLASS = 0x6d647264;
export const NOTIFY_CHANNEL = 'mdclaim';
