import type { Task } from '../format/task.js';

/** A line that starts as a task list item does: a bullet or number, then a marker mdclaim reads. */
const LOOKS_LIKE = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[(?: |x|X|⏰|🟡|✅|❌)[\],]/u;

/**
 * The list items that look like task lines but are no task: in a code block,
 * a quote, HTML (an unclosed fence or a `<details>` swallows the tasks
 * below it), or a marker with no text after it. A person reading the board
 * may expect them to be claimed; no claim takes them. Inside an HTML comment
 * they are taken as meant: commented out.
 */
export function lookAlikes(text: string, tasks: readonly Pick<Task, 'line'>[]): number[] {
  const isTask = new Set(tasks.map((t) => t.line));
  const found: number[] = [];
  let inComment = false;
  text.split('\n').forEach((line, i) => {
    const commented = inComment;
    const open = line.lastIndexOf('<!--');
    if (open >= 0 && line.indexOf('-->', open + 4) < 0) inComment = true;
    else if (inComment && line.includes('-->')) inComment = false;
    if (!commented && open < 0 && !isTask.has(i + 1) && LOOKS_LIKE.test(line)) found.push(i + 1);
  });
  return found;
}
