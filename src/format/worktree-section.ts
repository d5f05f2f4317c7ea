/** Does a section heading name `wanted`, as its text or as an ADW `Git Worktree <name>`? */
export function sectionMatches(section: string | undefined, wanted: string): boolean {
  if (section === undefined) return false;
  return section === wanted || worktreeOf(section) === wanted;
}

/** The `<name>` of an ADW `Git Worktree <name>` heading, else undefined. */
export function worktreeOf(section: string): string | undefined {
  const worktree = /^Git Worktree\s+(.+)$/.exec(section);
  return worktree === null ? undefined : worktree[1]!.trim();
}
