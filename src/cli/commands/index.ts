import type { Command } from './types.js';

/**
 * One file per command, loaded when it runs: a call pays for its own
 * command's code and what that needs, not for every command's (`run`'s
 * runner, `edit`'s editor, …). The registry is the only list (their flags
 * and summaries are in ../help.ts); `paths lock` is the key `pathsLock`.
 */
export const commands: Record<string, () => Promise<Command>> = {
  add: async () => (await import('./add.js')).add,
  claim: async () => (await import('./claim.js')).claim,
  doctor: async () => (await import('./doctor.js')).doctor,
  done: async () => (await import('./done.js')).done,
  edit: async () => (await import('./edit.js')).edit,
  export: async () => (await import('./export.js')).exportBoard,
  fail: async () => (await import('./fail.js')).fail,
  fence: async () => (await import('./fence.js')).fence,
  guard: async () => (await import('./guard.js')).guard,
  heartbeat: async () => (await import('./heartbeat.js')).heartbeat,
  history: async () => (await import('./history.js')).history,
  import: async () => (await import('./import.js')).importBoard,
  init: async () => (await import('./init.js')).init,
  list: async () => (await import('./list.js')).list,
  lock: async () => (await import('./lock.js')).lock,
  mcp: async () => (await import('./mcp.js')).mcp,
  migrate: async () => (await import('./migrate.js')).migrate,
  next: async () => (await import('./next.js')).next,
  paths: async () => (await import('./paths.js')).paths,
  pathsCheck: async () => (await import('./paths-check.js')).pathsCheck,
  pathsLock: async () => (await import('./paths-lock.js')).pathsLock,
  pathsUnlock: async () => (await import('./paths-unlock.js')).pathsUnlock,
  reap: async () => (await import('./reap.js')).reap,
  release: async () => (await import('./release.js')).release,
  reopen: async () => (await import('./reopen.js')).reopen,
  retry: async () => (await import('./retry.js')).retry,
  run: async () => (await import('./run.js')).run,
  status: async () => (await import('./status.js')).status,
  watch: async () => (await import('./watch.js')).watch,
  worktrees: async () => (await import('./worktrees.js')).worktrees,
  worktreesPrune: async () => (await import('./worktrees-prune.js')).worktreesPrune,
  worktreesRemove: async () => (await import('./worktrees-remove.js')).worktreesRemove,
};

export type { Command };
