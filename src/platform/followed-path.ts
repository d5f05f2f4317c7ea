import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { normalisePath } from '../format/paths.js';

/** Linux's limit on symlinks followed in one lookup (past it, open(2) says ELOOP). */
const MAX_HOPS = 40;

/**
 * The names a write of `path` (relative to `base`, or absolute) touches, as
 * board paths: the name as given, and the file the kernel would open through
 * its symlinks (a directory's, and the file's own, even one pointing at a file
 * not made yet) when that lies inside `base` under another name. Both are
 * held: whoever declared the link holds its name, whoever declared the target
 * holds what a write through it changes. A name outside `base` is none.
 */
export function namesWritten(base: string, path: string): string[] {
  const root = real(base);
  const given = resolve(base, path);
  const dir = path.endsWith('/') ? '/' : '';
  const out: string[] = [];
  for (const abs of [resolve(real(dirname(given)), basename(given)), followed(given)]) {
    const rel = relative(root, abs);
    if (rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel)) continue;
    // A name no declaration can spell is a name nobody holds.
    const n = normalisePath(rel + dir);
    if ('path' in n && !out.includes(n.path)) out.push(n.path);
  }
  return out;
}

/** `path` with every symlink in it followed, the last one too, whether or not what it leads to exists yet. */
function followed(path: string): string {
  let at = resolve(real(dirname(path)), basename(path));
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    let link: string;
    try {
      link = readlinkSync(at);
    } catch {
      return at; // not a symlink, or nothing there yet: the kernel opens this name
    }
    const next = resolve(dirname(at), link);
    at = resolve(real(dirname(next)), basename(next));
  }
  return at;
}

/** The real path of `path`, or of its longest existing start with the rest appended. */
export function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const up = dirname(path);
    return up === path ? path : resolve(real(up), basename(path));
  }
}

/** Paths as a caller gave them, each followed by the other names a write through it touches (see namesWritten); a bad path kept as given for the board to refuse. */
export function withTargets(base: string, paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    out.push(p);
    if ('path' in normalisePath(p)) for (const name of namesWritten(base, p)) if (!out.includes(name)) out.push(name);
  }
  return out;
}
