import type { AnyBoard } from '../../open.js';
import { sameFileAs } from '../../platform/same-file.js';
import { statSync } from 'node:fs';

/**
 * The held paths that name one of the files at `files` under another name
 * (a hard link: see sameFileAs), so a check asks about them too. The board's
 * holds are read only when one of the files has more than one link.
 */
export async function sharedNames(any: AnyBoard, base: string, files: readonly string[]): Promise<string[]> {
  const linked = files.filter((f) => {
    try {
      const st = statSync(f);
      return st.isFile() && st.nlink > 1;
    } catch {
      return false;
    }
  });
  if (linked.length === 0) return [];
  const held = [...new Set((await any.paths()).map((h) => h.path))];
  return [...new Set(linked.flatMap((f) => sameFileAs(base, f, held)))];
}
