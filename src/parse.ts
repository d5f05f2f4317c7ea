import { listTasks } from './board/walk.js';
import { toByteString } from './format/bytes.js';
import type { Task } from './format/task.js';

/** Read the tasks of a markdown document. Pure: no I/O, no lock. */
export function parseTasks(text: string | Uint8Array): Task[] {
  return listTasks(toByteString(text));
}
