// How a message names a task: its id, then its text in quotes, shortened,
// so a person can tell which line a 12-hex id means. One rule for every message.

/** The most characters of a task's text a message quotes. */
export const QUOTED_TEXT = 40;

/** A task's text on one line, at most QUOTED_TEXT characters (cut with `…`). */
export function shortText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= QUOTED_TEXT ? flat : `${chars.slice(0, QUOTED_TEXT - 1).join('').trimEnd()}…`;
}

/** `3f2a9c0d1b2e "Build the login page"`: a task as every message names it. */
export function named(task: { id: string; text: string }): string {
  // A tracker key is the start of its text already: quote what follows it.
  const text = task.text.startsWith(`${task.id} `) ? task.text.slice(task.id.length + 1) : task.text;
  return `${task.id} "${shortText(text)}"`;
}
