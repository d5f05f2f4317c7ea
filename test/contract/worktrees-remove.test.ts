import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mdclaim, mdclaimIn } from '../helpers/cli.js';
import { gitEnv } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// `mdclaim worktrees remove NAME`: one worktree removed on purpose, over worktrees a real run made.

const BOARD = `## Git Worktree spike
[] try an idea {go}

## Git Worktree draft
[] write a draft {go}

## Git Worktree release
[] ship the release {go}

## Git Worktree busy
[] start the work {go}
[] go on with it
`;

const COMMAND = `
set -e
case "$MDCLAIM_BRANCH" in
  spike) echo idea > idea.txt; git add idea.txt; git commit -q -m "an idea" ;;
  draft) echo "v=1" > draft.conf; git add draft.conf; git commit -q -m "a draft" ;;
esac
`;

const cli = (args: string[], cwd: string, env: Record<string, string>) => mdclaimIn(cwd, args, { env });

describeKinds('worktrees remove on the $name board', (kind) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mdclaim-remove-')));
  const dir = join(root, 'repo');
  const env = gitEnv(dir);
  const git = (args: string[], cwd = dir) => {
    const r = spawnSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
    return { status: r.status, out: r.stdout.trim() };
  };
  const tree = (name: string) => join(dir, 'trees', name);
  let a = '';
  let b = '';
  // A file board lives beside the repository for all the tests here (kind.make's is removed after each test).
  const board = async (name: string, content: string) => {
    if (kind.name !== 'file') return (await kind.make(content)).location;
    writeFileSync(join(root, name), content);
    return join(root, name);
  };

  beforeAll(async () => {
    mkdirSync(dir);
    git(['init', '-q', '-b', 'main']);
    writeFileSync(join(dir, 'README.md'), 'hello\n');
    git(['add', 'README.md']);
    git(['commit', '-q', '-m', 'start']);
    git(['branch', 'release']); // a person's branch, there before the run
    a = await board('a.md', BOARD);
    b = await board('b.md', '## Git Worktree other\n[] another board\n');
    const ran = await runner(a, ['--worktree', '--tag', 'go', '--concurrency', '4', '--until-settled', '--interval', '100ms', '--', 'sh', '-c', COMMAND], { cwd: dir, env }).done;
    expect(ran.code).toBe(0);
    // draft: an edit git status does not show.
    git(['update-index', '--skip-worktree', 'draft.conf'], tree('draft'));
    writeFileSync(join(tree('draft'), 'draft.conf'), 'v=2, not committed\n');
  }, 120_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a worktree with uncommitted changes, a skip-worktree edit too, --force or not', () => {
    for (const force of [[], ['--force']]) {
      const r = cli(['worktrees', 'remove', 'draft', ...force, '--file', a], dir, env);
      expect(r).toMatchObject({ status: 1, stdout: '', stderr: 'error[WORKTREE]: draft was not removed: 1 uncommitted or untracked change: commit or discard them first\n' });
    }
    expect(readFileSync(join(tree('draft'), 'draft.conf'), 'utf8')).toBe('v=2, not committed\n');
  });

  it('names the commits no other ref has and refuses without --force; with it, removes them and says where they were', () => {
    const tip = git(['rev-parse', 'spike']).out;
    const refused = cli(['worktrees', 'remove', 'spike', '--file', a], dir, env);
    expect(refused).toMatchObject({ status: 1, stdout: '' });
    expect(refused.stderr).toBe(`error[WORKTREE]: spike was not removed: 1 commit on no other ref nor in main would go with it (${tip.slice(0, 7)} an idea); --force removes them\n`);
    expect(existsSync(tree('spike'))).toBe(true);
    const forced = cli(['worktrees', 'remove', 'spike', '--force', '--file', a], dir, env);
    expect(forced).toMatchObject({ status: 0, stdout: `removed spike (${tree('spike')}, branch spike at ${tip.slice(0, 12)})\n` });
    expect(existsSync(tree('spike'))).toBe(false);
    expect(git(['rev-parse', '--verify', '--quiet', 'refs/heads/spike']).status).toBe(1);
  });

  it('removes the worktree of a branch mdclaim did not make, and leaves that branch', () => {
    const before = git(['rev-parse', 'release']).out;
    const r = cli(['worktrees', 'remove', 'release', '--file', a], dir, env);
    expect(r).toMatchObject({ status: 0, stdout: `removed release (${tree('release')}; branch release kept: mdclaim did not make it)\n` });
    expect(existsSync(tree('release'))).toBe(false);
    expect(git(['rev-parse', 'release']).out).toBe(before);
  });

  it("refuses another board's worktree, one a claim holds, and a name that is no worktree", () => {
    const key = kind.name === 'file' ? realpathSync(a) : a;
    expect(cli(['worktrees', 'remove', 'busy', '--file', b], dir, env)).toMatchObject({ status: 1, stderr: `error[WORKTREE]: busy was not removed: not made by mdclaim for this board (made for ${key})\n` });
    const id = JSON.parse(mdclaim(['list', '--json', '--file', a]).stdout).tasks.find((t: { text: string }) => t.text === 'go on with it').id as string;
    expect(mdclaim(['claim', id, '--by', 'r2', '--lease', '1h', '--file', a]).status).toBe(0);
    expect(cli(['worktrees', 'remove', 'busy', '--force', '--file', a], dir, env)).toMatchObject({ status: 4, stderr: `error[CONFLICT]: busy was not removed: task ${id} is claimed by r2\n` });
    expect(existsSync(tree('busy'))).toBe(true);
    expect(cli(['worktrees', 'remove', 'nothing', '--file', a], dir, env)).toMatchObject({ status: 3, stderr: `error[NOT_FOUND]: no worktree nothing in ${join(dir, 'trees')}\n` });
  });
});
