import { usage } from '../../errors.js';
import type { WorktreeOptions } from '../types.js';

/** `worktree` checked: true is every default. */
export function settleWorktree(o: boolean | WorktreeOptions | undefined): WorktreeOptions | undefined {
  if (o === undefined || o === false) return undefined;
  if (o !== true && (o === null || typeof o !== 'object')) throw usage('worktree must be true or an object of options');
  const w: WorktreeOptions = o === true ? {} : o;
  for (const name of ['trees', 'base', 'setup'] as const) {
    const v = w[name];
    if (v !== undefined && (typeof v !== 'string' || v === '')) throw usage(`worktree.${name} must be a non-empty string, got ${JSON.stringify(v)}`);
  }
  if (w.commit !== undefined && typeof w.commit !== 'boolean') throw usage('worktree.commit must be true or false');
  return w;
}
