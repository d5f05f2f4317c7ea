import { usage } from '../errors.js';
import type { Task } from '../format/task.js';
import { checkSection } from './checks.js';
import { passesFilter } from '../format/worktree-section.js';

export const STATUSES = ['open', 'blocked', 'claimed', 'done', 'failed'] as const;

/** What a listing keeps: tasks in this status, under this section, with every one of these tags. */
export interface TaskFilter {
  status?: string;
  section?: string;
  tags?: readonly string[];
}

/** The tasks a filter keeps, in board order; USAGE for a status that does not exist. */
export function selectTasks(tasks: readonly Task[], { status, section, tags = [] }: TaskFilter, statusName = 'status'): Task[] {
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) throw usage(`${statusName} must be one of ${STATUSES.join(', ')}, got "${status}"`);
  // A section is matched as its heading reads (`x ###` is the heading `x`).
  const wanted = section === undefined ? undefined : checkSection(section);
  return tasks.filter((t) => (status === undefined || t.status === status) && passesFilter(t.section, t.tags, { section: wanted, tags }));
}
