import type { Task } from '../../format/task.js';
import type { Parsed } from '../args.js';

/** `--writes a --writes b,c`: every value, split at commas (a path holds none, so a list from MDCLAIM_TASK_WRITES passes whole). */
export function pathFlag(p: Parsed, name: 'writes' | 'reads'): string[] | undefined {
  const values = p.flags.get(name);
  // An empty item (`a,,b`, or nothing staged) names no path; a flag with none at all is for the board to refuse.
  return values?.flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** A task's locks as one line: `src/a.ts (write), docs/ (read)`, or `none`. */
export function lockList(t: Task): string {
  return t.locks?.map((l) => `${l.path} (${l.mode})`).join(', ') ?? 'none';
}
