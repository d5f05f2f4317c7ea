import { atxText } from './block-starts.js';
import { bytes, utf8 } from './bytes.js';

/**
 * A section name as its heading reads back: what `## <name>` holds once
 * blanks and a closing run of #s are dropped (see atxText). Every section a
 * caller names is matched and created by this form, so `x ###` names the
 * heading `## x` it would have written.
 */
export function sectionName(name: string): string {
  const line = bytes(`## ${name}`);
  const [from, to] = atxText(line, 0, line.length, 2);
  return utf8(line, from, to).trim();
}
