import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitOut } from '../git.js';

/**
 * What mdclaim made, recorded when it made it, so that prune and the runner
 * touch only their own: a worktree's record lives in the worktree's own git
 * directory (`<common>/worktrees/<name>/mdclaim.json`, gone when git removes
 * the worktree), and says which board it serves and whether its branch was
 * made for it. A worktree without a record is a person's, and never removed.
 */
export interface WorktreeRecord {
  /** The record's format. */
  version: 1;
  /** The board the worktree serves, as another process finds it (`TaskBoard.handOff`; a file board's real path). */
  board: string;
  /** The branch checked out in it. */
  branch: string;
  /** Did mdclaim make the branch (true), or take up a branch that was there (false, and never deletes it)? */
  madeBranch: boolean;
  /** The commit the branch started from, when mdclaim made it. */
  base?: string;
  /** The branch that base was taken from (`main`), when there was one. */
  baseRef?: string;
}

const NAME = 'mdclaim.json';

/**
 * The worktree's own git directory (not the common one): what its `.git`
 * file names (`gitdir: …`, relative to the worktree when git wrote it so),
 * read without running git; git is asked only where `.git` is no such file.
 */
export async function worktreeGitDir(dir: string): Promise<string> {
  return gitDirNamedIn(dir) ?? gitOut(dir, ['rev-parse', '--absolute-git-dir']);
}

/** The git directory the `.git` file at the top of `dir` names, or undefined when there is no such file (a directory, none, unreadable). */
function gitDirNamedIn(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, '.git'), 'utf8');
  } catch {
    // A `.git` directory (EISDIR) or none: git is asked instead.
    return undefined;
  }
  const named = /^gitdir: (.+)$/m.exec(text);
  return named === null ? undefined : resolve(dir, named[1]!.trim());
}

/** Write the record into the worktree's git directory, whole or not at all. */
export async function writeRecord(dir: string, record: WorktreeRecord): Promise<void> {
  const gitDir = await worktreeGitDir(dir);
  const tmp = join(gitDir, `${NAME}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  renameSync(tmp, join(gitDir, NAME));
}

/** The record of the worktree whose git directory is `gitDir`, or undefined when mdclaim did not make it (or it cannot be read). */
export function readRecordAt(gitDir: string): WorktreeRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(gitDir, NAME), 'utf8')) as Partial<WorktreeRecord>;
    if (parsed.version !== 1 || typeof parsed.board !== 'string' || typeof parsed.branch !== 'string' || typeof parsed.madeBranch !== 'boolean') return undefined;
    return parsed as WorktreeRecord;
  } catch {
    return undefined;
  }
}

/** The record of the worktree at `dir`, or undefined (see readRecordAt). */
export async function readRecord(dir: string): Promise<WorktreeRecord | undefined> {
  // Tolerated on purpose: a worktree whose git directory git cannot name has no record to read, and one without a record is a person's, never removed.
  const gitDir = await worktreeGitDir(dir).catch(() => undefined);
  return gitDir === undefined ? undefined : readRecordAt(gitDir);
}

/** How a record names a board: a URL as it is (no password), a path as its real path, so two spellings of one file agree. */
export function boardKeyOf(where: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(where)) return where;
  try {
    return realpathSync(resolve(where));
  } catch {
    return resolve(where);
  }
}

/**
 * The record of the worktree that holds `cwd`, found without running git
 * (every command without --file asks): the nearest `.git` above `cwd`, when
 * it is a file naming a worktree's own git directory. Undefined in a main
 * checkout, outside any repository, or in a worktree mdclaim did not make.
 */
export function recordAround(cwd: string): WorktreeRecord | undefined {
  for (let dir = resolve(cwd); ; ) {
    const dotGit = join(dir, '.git');
    let text: string | undefined;
    try {
      if (statSync(dotGit).isDirectory()) return undefined;
      text = readFileSync(dotGit, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const gitDir = gitDirNamedIn(dir);
      return gitDir === undefined ? undefined : readRecordAt(gitDir);
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
