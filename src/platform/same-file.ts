import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { withTargets } from './followed-path.js';

/** Entries looked at under one held directory, at most: a guard answers an editor's every write. */
const MAX_ENTRIES = 20_000;

/**
 * Which of `held` (board paths relative to `base`, a directory ending in `/`)
 * name the file at `abs` under another name: a hard link shares its file, so
 * a write through one name changes what the other holds. Asked only of a
 * file with more than one link; a held directory is looked through for it.
 */
function sameFileAs(base: string, abs: string, held: readonly string[]): string[] {
  let st: Stats;
  try {
    st = statSync(abs);
  } catch {
    return [];
  }
  if (!st.isFile() || st.nlink < 2) return [];
  const same = (s: Stats) => s.isFile() && s.ino === st.ino && s.dev === st.dev;
  return held.filter((path) => {
    const at = resolve(base, path);
    if (!path.endsWith('/')) {
      try {
        return same(statSync(at));
      } catch {
        return false;
      }
    }
    return holdsFile(at, same);
  });
}

/** Is a file `same` accepts under `dir` (symlinks not followed, a bounded number of entries)? */
function holdsFile(dir: string, same: (s: Stats) => boolean): boolean {
  const queue = [dir];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_ENTRIES) {
    const from = queue.shift()!;
    let names: string[];
    try {
      names = readdirSync(from, { encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const name of names) {
      if (++seen > MAX_ENTRIES) break;
      const at = join(from, name);
      let s: Stats;
      try {
        s = lstatSync(at);
      } catch {
        continue;
      }
      if (same(s)) return true;
      if (s.isDirectory()) queue.push(at);
    }
  }
  return false;
}

/**
 * The held paths that name one of `files` (absolute) under another name, so
 * a check asks about them too (see sameFileAs). `held` (the board's held
 * paths) is asked only when one of the files has more than one link: guard,
 * paths check and MCP's paths_check all ask this.
 */
export async function heldLinks(base: string, files: readonly string[], held: () => Promise<readonly string[]>): Promise<string[]> {
  const linked = files.filter((f) => {
    try {
      const st = statSync(f);
      return st.isFile() && st.nlink > 1;
    } catch {
      return false;
    }
  });
  if (linked.length === 0) return [];
  const paths = [...new Set(await held())];
  return [...new Set(linked.flatMap((f) => sameFileAs(base, f, paths)))];
}

/**
 * Paths as a caller gave them (relative to `base`), each followed by the
 * other names a write through it touches: through symlinks (withTargets) and,
 * for a hard link, the held names of its file (heldLinks).
 */
export async function namesTouched(base: string, paths: readonly string[], held: () => Promise<readonly string[]>): Promise<string[]> {
  const names = withTargets(base, paths);
  const linked = await heldLinks(base, paths.map((p) => resolve(base, p)), held);
  return [...names, ...linked.filter((n) => !names.includes(n))];
}
