import { normalisePath } from './paths.js';

/**
 * The paths a task line declares: `{writes: src/auth/login.ts, src/auth/session.ts}`
 * and `{reads: docs/api.md}`, anywhere in the text outside code spans, as
 * often as it likes. Such a group is a declaration, never a tag group.
 */
export interface Declared {
  writes: string[];
  reads: string[];
  /** Paths that do not normalise (one leaving the tree, say), with why: such a path holds nothing. */
  errors: string[];
}

// `{writes: a, b}` / `{reads: c}`: the key, a colon, then anything up to the closing brace.
export const DECLARATION = /\{[ \t]*(writes|reads)[ \t]*:([^{}]*)\}/g;

/** Can this text hold a declaration at all? (The cheap test before the regex runs.) */
export function mayDeclare(text: string): boolean {
  return text.includes('{') && (text.includes('writes') || text.includes('reads'));
}

/** Remove code spans: what is quoted as code declares nothing and tags nothing. */
export function withoutCode(text: string): string {
  return text.includes('`') ? text.replace(/`[^`]*`/g, '') : text;
}

/** The declared paths of a task's text, normalised, each once, in the order written. */
export function parseDeclared(text: string): Declared {
  const out: Declared = { writes: [], reads: [], errors: [] };
  if (!mayDeclare(text)) return out;
  for (const m of withoutCode(text).matchAll(DECLARATION)) {
    const list = m[1] === 'writes' ? out.writes : out.reads;
    for (const item of m[2]!.split(',')) {
      const raw = item.trim();
      if (raw === '') continue;
      const n = normalisePath(raw);
      if ('error' in n) out.errors.push(n.error);
      else if (!list.includes(n.path)) list.push(n.path);
    }
  }
  return out;
}
