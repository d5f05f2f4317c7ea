import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mdclaimIn } from '../helpers/cli.js';
import { gitEnv } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// What `worktrees prune` removes and never removes, over worktrees a real `run --worktree` made in a
// real repository: one run makes them all, then each rule is read off one prune (and a look before it).

const BOARD = `## Git Worktree release
[] ship the release {go}

## Git Worktree revert
[] try something and undo it {go}

## Git Worktree squash
[] add the feature {go}

## Git Worktree rebased
[] add two things {go}

## Git Worktree hidden
[] add the config {go}

## Git Worktree assumed
[] add the other config {go}

## Git Worktree failed
[] fail first {go}
[⏰] then this

## Git Worktree later
[] succeed first {go}
[⏰] then this too
`;

// What each section's task does in its worktree.
const COMMAND = `
set -e
commit() { git add --all && git commit -q -m "$1"; }
case "$MDCLAIM_BRANCH" in
  revert) echo tried > tried.txt; commit "try"; git revert --no-edit HEAD >/dev/null ;;
  squash) echo feature > feature.txt; commit "feature" ;;
  rebased) echo one > one.txt; commit "one"; echo two > two.txt; commit "two" ;;
  hidden|assumed) echo "key=1" > "$MDCLAIM_BRANCH.conf"; commit "config" ;;
  failed) exit 1 ;;
esac
`;

const cli = (args: string[], cwd: string, env: Record<string, string>) => mdclaimIn(cwd, args, { env });

const lines = (out: string) => out.split('\n').filter(Boolean).sort();

describeKinds('worktrees prune on the $name board', (kind) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mdclaim-prune-')));
  const dir = join(root, 'repo');
  const env = gitEnv(dir);
  const git = (args: string[], cwd = dir) => {
    const r = spawnSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const tree = (name: string) => join(dir, 'trees', name);
  const branchAt = (name: string) => spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  const board = async (name: string, content: string) => {
    if (kind.name !== 'file') return (await kind.make(content)).location;
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
    return name;
  };
  const seen = {} as Record<'otherList' | 'otherPrune' | 'parentList' | 'parentPrune' | 'list' | 'prune', ReturnType<typeof cli>> & { key: string; release: string; revert: string };

  beforeAll(async () => {
    mkdirSync(dir);
    git(['init', '-q', '-b', 'main']);
    writeFileSync(join(dir, 'README.md'), 'hello\n');
    git(['add', 'README.md']);
    git(['commit', '-q', '-m', 'start']);
    // A person's own branch `release`, whose one commit was cherry-picked onto main.
    git(['switch', '-q', '-c', 'release']);
    writeFileSync(join(dir, 'release.txt'), 'notes\n');
    git(['add', 'release.txt']);
    git(['commit', '-q', '-m', 'release notes']);
    seen.release = git(['rev-parse', 'HEAD']);
    git(['switch', '-q', 'main']);
    git(['cherry-pick', seen.release]);

    // Two boards of one repository, as docs/tasks.md and ./tasks.md are (named from the repository's top).
    const a = { location: await board('docs/tasks.md', BOARD) };
    const b = { location: await board('tasks.md', '## Git Worktree elsewhere\n[] another board\n') };
    seen.key = kind.name === 'file' ? join(dir, 'docs', 'tasks.md') : a.location;
    const ran = await runner(a.location, ['--worktree', '--tag', 'go', '--concurrency', '4', '--until-settled', '--interval', '100ms', '--', 'sh', '-c', COMMAND], { cwd: dir, env }).done;
    expect(ran.code).toBe(1); // the failed section's task
    seen.revert = git(['rev-parse', 'revert']);

    // squash: squash-merged into main, then main edits the file it added.
    git(['merge', '--squash', 'squash']);
    git(['commit', '-q', '-m', 'the feature, squashed']);
    writeFileSync(join(dir, 'feature.txt'), 'feature, edited on main\n');
    git(['commit', '-q', '-a', '-m', 'edit the feature']);
    // rebased: its commits picked onto main one by one, after main moved on.
    git(['cherry-pick', `${git(['merge-base', 'main', 'rebased'])}..rebased`]);
    // hidden, assumed: merged, then an edit git status does not show.
    git(['merge', '-q', '--no-edit', 'hidden']);
    git(['merge', '-q', '--no-edit', 'assumed']);
    git(['update-index', '--skip-worktree', 'hidden.conf'], tree('hidden'));
    writeFileSync(join(tree('hidden'), 'hidden.conf'), 'key=2, edited\n');
    git(['update-index', '--assume-unchanged', 'assumed.conf'], tree('assumed'));
    writeFileSync(join(tree('assumed'), 'assumed.conf'), 'key=3, edited\n');
    expect(git(['status', '--porcelain'], tree('hidden'))).toBe('');

    seen.parentList = cli(['worktrees', '--trees', '..', '--file', a.location], dir, env);
    seen.parentPrune = cli(['worktrees', 'prune', '--dry-run', '--trees', '..', '--file', a.location], dir, env);
    seen.list = cli(['worktrees', '--json', '--file', a.location], dir, env);
    seen.prune = cli(['worktrees', 'prune', '--file', a.location], dir, env);
    // The other board, on what this board's prune kept.
    seen.otherList = cli(['worktrees', '--file', b.location], dir, env);
    seen.otherPrune = cli(['worktrees', 'prune', '--file', b.location], dir, env);
  }, 120_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const listed = (name: string) => (JSON.parse(seen.list.stdout).worktrees as { name: string }[]).find((w) => w.name === name);

  it('never deletes a branch mdclaim did not make: the worktree goes, the person\'s branch and its commit stay', () => {
    expect(lines(seen.prune.stdout)).toContain(`removed release (${tree('release')}; branch release kept: mdclaim did not make it)`);
    expect(existsSync(tree('release'))).toBe(false);
    expect(branchAt('release')).toBe(seen.release);
    expect(listed('release')).toMatchObject({ ours: true, madeBranch: false, branch: 'release' });
  });

  it('keeps a branch whose commits cancel out and that no other ref has, saying so', () => {
    expect(lines(seen.prune.stdout)).toContain('kept revert: its 2 commits add up to no change from its base and no other ref has them: a person decides (npx mdclaim worktrees remove revert --force)');
    expect(existsSync(tree('revert'))).toBe(true);
    expect(branchAt('revert')).toBe(seen.revert);
    expect(listed('revert')).toMatchObject({ ahead: 2, merged: false, cancelsOut: true, deletable: false, onlyHere: [expect.stringMatching(/^\w{7,} Revert "try"$/), expect.stringMatching(/^\w{7,} try$/)] });
  });

  it('keeps a worktree whose skip-worktree or assume-unchanged file was edited (git status shows nothing)', () => {
    expect(lines(seen.prune.stdout)).toEqual(expect.arrayContaining(['kept assumed: 1 uncommitted or untracked change', 'kept hidden: 1 uncommitted or untracked change']));
    expect(readFileSync(join(tree('hidden'), 'hidden.conf'), 'utf8')).toBe('key=2, edited\n');
    expect(readFileSync(join(tree('assumed'), 'assumed.conf'), 'utf8')).toBe('key=3, edited\n');
    expect(listed('hidden')).toMatchObject({ changes: 1, merged: true });
    expect(listed('assumed')).toMatchObject({ changes: 1, merged: true });
  });

  it('leaves another board\'s worktrees in the shared trees directory alone: listed as not its own, never removed', () => {
    expect(seen.otherPrune.status).toBe(0);
    expect(lines(seen.otherPrune.stdout)).toEqual(['assumed', 'hidden', 'later', 'revert'].map((n) => `kept ${n}: not made by mdclaim for this board (made for ${seen.key})`));
    for (const n of ['assumed', 'hidden', 'later', 'revert']) expect(existsSync(tree(n))).toBe(true);
    expect(lines(seen.otherList.stdout)).toContain(`later  trees/later  branch later  not made by mdclaim for this board (made for ${seen.key})`);
  });

  it('never lists or removes the main checkout, whatever the trees directory (--trees ..)', () => {
    expect(seen.parentList).toMatchObject({ status: 0, stdout: '' });
    expect(seen.parentPrune).toMatchObject({ status: 0, stdout: '' });
    expect(existsSync(join(dir, '.git', 'HEAD'))).toBe(true);
  });

  it('removes a squash-merged branch after main edited a file it added: its change is found on main', () => {
    expect(lines(seen.prune.stdout)).toContain(`removed squash (${tree('squash')}, branch squash)`);
    expect(branchAt('squash')).toBe('');
    expect(readFileSync(join(dir, 'feature.txt'), 'utf8')).toBe('feature, edited on main\n');
    expect(listed('squash')).toMatchObject({ ahead: 1, merged: true, deletable: true });
  });

  it('removes a branch whose commits were picked onto main one by one (a rebase): each change is found there', () => {
    expect(lines(seen.prune.stdout)).toContain(`removed rebased (${tree('rebased')}, branch rebased)`);
    expect(branchAt('rebased')).toBe('');
    expect(listed('rebased')).toMatchObject({ ahead: 2, merged: true, deletable: true });
  });

  it('settles as run --until-settled does: a [⏰] behind a [❌] keeps nothing; a task that could still run keeps its worktree, named', () => {
    expect(lines(seen.prune.stdout)).toContain(`removed failed (${tree('failed')}, branch failed)`);
    const waiting = (listed('later') as unknown as { tasks: { waiting: string[] } }).tasks.waiting[0];
    expect(lines(seen.prune.stdout)).toContain(`kept later: task ${waiting} could still run here: it is [⏰] behind tasks that are done or could still end done`);
    expect(listed('failed')).toMatchObject({ tasks: { failed: [expect.any(String)], waiting: [expect.any(String)], couldRun: [] } });
  });
});
