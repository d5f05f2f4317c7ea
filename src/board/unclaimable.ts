import { usage, type MdclaimError } from '../errors.js';
import { parseDeclared } from '../format/declared.js';
import { named } from '../format/named.js';
import { FAILED_SEP } from '../format/task.js';

// What a task's own line may hold for mdclaim to claim it, whatever else the board holds: one rule
// for `add` (refused before it is written), `claim` (a usage error naming the line) and `next`
// (passed over, with a warning naming the task), on every board.

/**
 * Why a text cannot be claimed, or null: a declared path that does not
 * normalise (claimed, it would hold nothing there), or the failure
 * reason's separator (` // Failed:`), which a failed line reads its reason
 * after: such a task could be claimed but never failed.
 */
export function textRefusal(text: string): string | null {
  // The blank after the marker comes before the text: a text starting `// Failed:` holds it too.
  if (` ${text}`.includes(FAILED_SEP)) return `holds "${FAILED_SEP.trim()}" in its text, where only a failure's reason may follow`;
  const errors = text.includes('{') ? parseDeclared(text).errors : [];
  return errors.length > 0 ? `declares ${errors[0]!}` : null;
}

/** The usage error for a line refused for `why` (its text, or what it waits for: a task that is none, a cycle). */
export function refusedLine(why: string, line: number): MdclaimError {
  return usage(`line ${line} ${why} (fix the line to claim it)`);
}

/** Throw the usage error for a line its text keeps from being claimed (textRefusal), if it does. */
export function refuseLine(text: string, line: number): void {
  const why = textRefusal(text);
  if (why !== null) throw refusedLine(why, line);
}

/** The one line that tells a task was passed over: `passed over 1a2b3c4d5e6f "…": line 3 declares … (fix the line to claim it)`. */
export function passedOverLine(p: { task: { id: string; text: string }; reason: string }): string {
  return `passed over ${named(p.task)}: ${p.reason}`;
}
