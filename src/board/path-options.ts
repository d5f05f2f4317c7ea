import { usage } from '../errors.js';
import { normalisePath } from '../format/paths.js';
import type { PathRequest, Paths } from './path-types.js';

/** A list of paths a caller gave, normalised, each once; USAGE (before anything is written) for a bad one. */
export function pathList(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw usage(`${name} must be an array of paths, got ${typeof value}`);
  const out: string[] = [];
  for (const raw of value as unknown[]) {
    if (typeof raw !== 'string') throw usage(`${name} must hold only strings, got ${typeof raw}`);
    const n = normalisePath(raw);
    if ('error' in n) throw usage(`${name}: ${n.error}`);
    if (!out.includes(n.path)) out.push(n.path);
  }
  return out;
}

/** The writes and reads of a request, at least one path in all. */
export function pathRequest(options: PathRequest, what: string): Paths {
  const writes = pathList(options?.writes, 'writes');
  const reads = pathList(options?.reads, 'reads');
  if (writes.length === 0 && reads.length === 0) throw usage(`${what}: name at least one path to write or read`);
  return { writes, reads };
}
