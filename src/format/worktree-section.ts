/** Does a section heading name `wanted`, as its text or as the worktree it names (see worktreeOf)? */
export function sectionMatches(section: string | undefined, wanted: string): boolean {
  if (section === undefined) return false;
  return section === wanted || worktreeOf(section) === wanted;
}

/** A `--section`/`--tag` filter: the section a task's heading names (sectionMatches), and tags it carries, all of them. */
export interface SectionTagFilter {
  section?: string | undefined;
  tags?: readonly string[] | undefined;
}

/**
 * Does a task pass a section and tag filter? The one reading of both, asked by
 * every caller that filters (listings, next on both boards, the runner, watch).
 * `tags` may be a function, called only when the filter names tags and the
 * section matched: a caller that reads them from bytes reads them only then.
 */
export function passesFilter(section: string | undefined, tags: readonly string[] | (() => readonly string[]), filter: SectionTagFilter): boolean {
  if (filter.section !== undefined && !sectionMatches(section, filter.section)) return false;
  const wanted = filter.tags ?? [];
  if (wanted.length === 0) return true;
  const have = typeof tags === 'function' ? tags() : tags;
  return wanted.every((g) => have.includes(g));
}

// `Git Worktree NAME` (ADW, agf), `Worktree: NAME` and `Worktree NAME` (mhmdez/adw), the words in any case;
// a trailing `{…}` (agf's worktree id) is not part of the name. Without the colon the name is one word,
// so a heading such as `Worktree setup notes` stays a plain section.
const WORKTREE = /^(?:git\s+worktree\s+(.*?)|worktree:\s*(.*?)|worktree\s+(\S+))(?:\s*\{[^{}]*\})?$/i;

/** The `NAME` of a worktree heading (`Git Worktree NAME`, `Worktree: NAME`, `Worktree NAME`), else undefined. */
export function worktreeOf(section: string): string | undefined {
  const worktree = WORKTREE.exec(section);
  const name = worktree === null ? undefined : (worktree[1] ?? worktree[2] ?? worktree[3])!.trim();
  return name === undefined || name === '' ? undefined : name;
}
