import type { Task } from '../format/task.js';

/**
 * The task as the command sees it: its environment plus MDCLAIM_* variables.
 * MDCLAIM_FILE is absolute, so a command that changes directory can still
 * reach the board. MDCLAIM_TASK_WRITES and MDCLAIM_TASK_READS are the paths
 * the task declares, comma-separated (a path holds no comma), empty when none.
 * MDCLAIM_CLAIMED_AT is the claim's time, for a git hook to fence with.
 */
export function taskEnv(base: NodeJS.ProcessEnv, task: Task, by: string, file: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    MDCLAIM_TASK_ID: task.id,
    MDCLAIM_TASK_TEXT: task.text,
    MDCLAIM_TASK_TAGS: task.tags.join(','),
    MDCLAIM_TASK_WRITES: (task.writes ?? []).join(','),
    MDCLAIM_TASK_READS: (task.reads ?? []).join(','),
    MDCLAIM_SECTION: task.section ?? '',
    MDCLAIM_BY: by,
    MDCLAIM_CLAIMED_AT: task.claimedAt ?? '',
  };
  if (file !== undefined) env['MDCLAIM_FILE'] = file;
  return env;
}
