import { git, gitOut } from '../git.js';

/**
 * Where a branch's work lives besides the branch itself: the one rule prune,
 * `worktrees` and `worktrees remove` ask before they call a branch merged or
 * delete it.
 */
export interface BranchWork {
  /** Commits on the branch since its base; null when the base is unknown. */
  ahead: number | null;
  /** The branch's commits that no other ref (branch, tag, remote branch, the main checkout's HEAD) reaches: `1a2b3c4 subject`. */
  onlyHere: string[];
  /** Its commits since the base add up to no change at all (a commit and its revert, say). */
  cancelsOut: boolean;
  /** Its change, non-empty, is found on the base branch: as one commit there (a squash merge), or commit by commit (a rebase). */
  foundOnBase: boolean;
  /** In the base branch: every commit of it reachable from the base branch, or its change found there. */
  merged: boolean;
  /** May the branch be deleted without losing a commit: every commit reachable from another ref, or its change found on the base branch. */
  deletable: boolean;
}

/** Where `branch` (at `head`, made from `base`, compared with `baseBranch`; '' for a detached HEAD) has its work. */
export async function branchWork(top: string, branch: string, head: string, base: string | undefined, baseBranch: string | undefined): Promise<BranchWork> {
  const comparable = baseBranch !== undefined && baseBranch !== branch && baseBranch !== `refs/heads/${branch}` && (await resolves(top, baseBranch));
  const from = base ?? (comparable ? await mergeBase(top, baseBranch!, head) : undefined);
  const ahead = from === undefined ? null : await count(top, [`${from}..${head}`]);
  // Every ref but the branch itself; this checkout's HEAD, not the other worktrees' (the one judged among them).
  const onlyHere = await lines(top, ['log', '--format=%h %s', head, '--not', '--single-worktree', ...(branch === '' ? [] : [`--exclude=refs/heads/${branch}`]), '--all']);
  const notInBase = comparable ? await count(top, [head, '--not', baseBranch!]) : null;
  const change = from === undefined ? undefined : (await patchIds(top, ['diff', ...DIFF, from, head]))?.[0] ?? '';
  const cancelsOut = change === '' && (ahead ?? 0) > 0;
  // Looked for only when it decides something: a branch wholly in the base branch and on other refs needs no search.
  const wanted = notInBase !== 0 || onlyHere.length > 0;
  const foundOnBase = wanted && comparable && from !== undefined && change !== undefined && change !== '' && (await changeOnBase(top, change, from, head, baseBranch!));
  return { ahead, onlyHere, cancelsOut, foundOnBase, merged: notInBase === 0 || foundOnBase, deletable: onlyHere.length === 0 || foundOnBase };
}

/** How diffs are taken for patch ids, the same on both sides: no renames, no text conversion, binary changes in full. */
const DIFF = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--binary', '--full-index'];

/**
 * Is the change `from..head` (its patch id `change`) on the base branch
 * since `from`? Yes when a commit there makes exactly that change to the
 * files the branch changed (a squash merge, however much else it held), or
 * when every commit of the branch has its equal there (`git cherry`: a
 * rebase, cherry-picks). Judged by the change, never by merging into the base
 * branch as it is today: a later edit there of a file the branch added does
 * not hide it.
 */
async function changeOnBase(top: string, change: string, from: string, head: string, baseBranch: string): Promise<boolean> {
  const files = (await gitOut(top, ['diff', '--name-only', '--no-renames', '-z', from, head])).split('\0').filter(Boolean);
  const onBase = await patchIds(top, ['log', '-p', '--format=commit %H', ...DIFF, `${from}..${baseBranch}`, '--', ...files.map((f) => `:(literal)${f}`)]);
  if (onBase?.includes(change)) return true;
  const cherry = await lines(top, ['cherry', baseBranch, head, from]);
  return cherry.length > 0 && cherry.every((l) => l.startsWith('- '));
}

/** The patch ids (`git patch-id --stable`) of the changes a git command prints, in order ([] for none); undefined when it fails. */
async function patchIds(top: string, args: string[]): Promise<string[] | undefined> {
  const shown = await git(top, args);
  if (shown.code !== 0) return undefined;
  if (shown.out === '') return [];
  const ids = await git(top, ['patch-id', '--stable'], { input: shown.out });
  return ids.code === 0 ? ids.out.split('\n').filter(Boolean).map((l) => l.split(' ')[0]!) : undefined;
}

async function resolves(top: string, ref: string): Promise<boolean> {
  return (await git(top, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).code === 0;
}

async function mergeBase(top: string, a: string, b: string): Promise<string | undefined> {
  const r = await git(top, ['merge-base', a, b]);
  return r.code === 0 ? r.out.trim() : undefined;
}

async function count(top: string, range: string[]): Promise<number | null> {
  const r = await git(top, ['rev-list', '--count', ...range]);
  return r.code === 0 ? Number(r.out.trim()) : null;
}

/** git's output lines; a failure throws (WORKTREE), never reads as "nothing there". */
async function lines(top: string, args: string[]): Promise<string[]> {
  return (await gitOut(top, args)).split('\n').filter((l) => l !== '');
}
