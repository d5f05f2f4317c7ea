import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { repo } from './helpers/git.js';
import { CLI, mdclaim } from './helpers/cli.js';
import { stopOutsideLock } from './helpers/locks.js';
import { runner, until } from './helpers/runner.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// run --worktree at its edges, in a real repository with real processes.

/** A git on PATH whose `git add --all` says it started ($SCRATCH/adding) and waits for $SCRATCH/go, as a huge tree or a slow disk would keep it. */
function slowGitAdd(scratch: string): string {
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nif [ "$1" = add ] && [ "$2" = --all ]; then touch "${scratch}/adding"; while [ ! -e "${scratch}/go" ]; do sleep 0.05; done; fi\nexec ${real} "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return `${bin}:${process.env['PATH']}`;
}

describe('run --worktree at its edges', () => {
  it('with --commit, commits nothing once the claim is lost during a slow git add: the changes stay, one line says so, the board as the new holder left it', async () => {
    const r = repo();
    const file = boardFile('## Git Worktree api\n- [ ] write the notes\n');
    const run = runner(file, ['--worktree', '--commit', '--lease', '2s', '--by', 'r1', '--', 'sh', '-c', 'echo mine > notes.txt'], { cwd: r.dir, env: { ...r.env, PATH: slowGitAdd(r.scratch) } });
    await until('git add to start', () => existsSync(join(r.scratch, 'adding')));
    // The runner is frozen past its lease; a second holder takes the task and starts writing in the worktree.
    await stopOutsideLock(run.child.pid!, file);
    const id = (await openBoard(file).list())[0]!.id;
    await until('the takeover', () => mdclaim(['claim', id, '--file', file, '--by', 'r2', '--lease', '1h']).status === 0, 100);
    writeFileSync(join(r.dir, 'trees', 'api', 'half.txt'), 'unfinished\n');
    const taken = bytesOf(file);
    writeFileSync(join(r.scratch, 'go'), '');
    run.child.kill('SIGCONT');
    const end = await run.done;
    expect(end.code).toBe(4);
    expect(end.stderr).toMatch(new RegExp(`^mdclaim: ${id} left 1 uncommitted change in ${join(r.dir, 'trees', 'api')}: not committed, the claim was lost first$`, 'm'));
    expect(r.git(['rev-list', '--count', 'main..api']).out).toBe('0');
    expect(readFileSync(join(r.dir, 'trees', 'api', 'half.txt'), 'utf8')).toBe('unfinished\n');
    expect(bytesOf(file)).toEqual(taken);
  });


  it('with --commit, keeps the claim through a git add that outlasts its lease, and commits', async () => {
    const r = repo();
    const file = boardFile('## Git Worktree api\n- [ ] write the notes\n');
    const run = runner(file, ['--worktree', '--commit', '--lease', '2s', '--by', 'r1', '--', 'sh', '-c', 'echo mine > notes.txt'], { cwd: r.dir, env: { ...r.env, PATH: slowGitAdd(r.scratch) } });
    await until('git add to start', () => existsSync(join(r.scratch, 'adding')));
    const id = (await openBoard(file).list())[0]!.id;
    // Twice the lease and more: the runner renews its claim while git works, so no one can take the task.
    const until2 = Date.now() + 4500;
    while (Date.now() < until2) {
      expect(mdclaim(['claim', id, '--file', file, '--by', 'r2', '--lease', '1h']).status).toBe(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    writeFileSync(join(r.scratch, 'go'), '');
    const end = await run.done;
    expect(end.code, end.stderr).toBe(0);
    const [task] = await openBoard(file).list();
    expect(task).toMatchObject({ status: 'done', by: 'r1' });
    expect(r.git(['show', `${task!.commit}:notes.txt`]).out).toBe('mine');
  });

  it('refuses a --trees that cannot hold worktrees in one line before anything is claimed, and never spins making it', async () => {
    const r = repo();
    writeFileSync(join(r.scratch, 'a-file'), '');
    symlinkSync(join(r.scratch, 'nowhere'), join(r.scratch, 'dangling'));
    const file = boardFile('## Git Worktree api\n- [ ] build it\n');
    const before = bytesOf(file);
    const cases: [string, number, RegExp][] = [
      [join(r.dir, 'my trees'), 2, /^error\[USAGE\]: --trees .*\/my trees cannot hold worktrees: path "my trees\/NAME\/" holds a blank, which a path here may not$/],
      [join(r.scratch, 'a-file'), 1, /^error\[WORKTREE\]: --trees .*\/a-file cannot hold worktrees: .*\/a-file is a file, not a directory$/],
      [join(r.scratch, 'a-file', 'under'), 1, /^error\[WORKTREE\]: --trees .*\/a-file\/under cannot hold worktrees: .*\/a-file is a file, not a directory$/],
      [join(r.scratch, 'dangling'), 1, /^error\[WORKTREE\]: --trees .*\/dangling cannot hold worktrees: .*\/dangling is a symbolic link to nothing$/],
      ['/proc/self/x', 1, /^error\[WORKTREE\]: --trees \/proc\/self\/x cannot hold worktrees: /],
    ];
    for (const [trees, code, line] of cases) {
      const end = await runner(file, ['--worktree', '--trees', trees, '--', 'true'], { cwd: r.dir, env: r.env }).done;
      expect(end.code, trees).toBe(code);
      expect(end.stderr.split('\n').filter((l) => l.startsWith('error['))).toEqual([expect.stringMatching(line)]);
      expect(bytesOf(file), trees).toEqual(before);
    }
  });

  it('takes a worktree git made as made though ^C cut its post-checkout hook short, and never deletes the branch it has checked out', async () => {
    const r = repo();
    // ^C reaches the hook while git runs it: git then fails `git worktree add`, the worktree made.
    writeFileSync(join(r.dir, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\nkill -INT $$\n');
    chmodSync(join(r.dir, '.git', 'hooks', 'post-checkout'), 0o755);
    const main = r.git(['rev-parse', 'main']).out;
    const file = boardFile('## Git Worktree api\n- [ ] build it\n');
    const end = await runner(file, ['--worktree', '--until-settled', '--interval', '100ms', '--', 'sh', '-c', 'echo x > x.txt && git add x.txt && git commit -qm built'], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    const [task] = await openBoard(file).list();
    expect(task).toMatchObject({ status: 'done' });
    // The task's commit sits on the branch made from main, not on an unborn branch of its own.
    expect(r.git(['rev-parse', 'api^']).out).toBe(main);
    expect(r.git(['rev-parse', '--short', 'api']).out).toBe(task!.commit);
    expect(existsSync(join(r.git(['rev-parse', '--absolute-git-dir'], join(r.dir, 'trees', 'api')).out, 'mdclaim.json'))).toBe(true);
  });

  it('leaves the registration of a person\'s worktree on an absent disk alone, and forgets only its own stale worktree at the path it makes', async () => {
    const r = repo();
    const disk = join(r.scratch, 'disk');
    expect(r.git(['worktree', 'add', '-q', '-b', 'mine', join(disk, 'mine')]).status).toBe(0);
    writeFileSync(join(disk, 'mine', 'staged.txt'), 'staged\n');
    r.git(['add', 'staged.txt'], join(disk, 'mine'));
    renameSync(disk, join(r.scratch, 'unplugged'));
    const COMMIT = 'echo "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt" && git add . && git commit -qm "$MDCLAIM_TASK_TEXT"';
    const first = await runner(boardFile('## Git Worktree api\n- [ ] one\n'), ['--worktree', '--', 'sh', '-c', COMMIT], { cwd: r.dir, env: r.env }).done;
    expect(first.code, first.stderr).toBe(0);
    // mdclaim's own worktree goes missing too: made again at its path, from its branch.
    rmSync(join(r.dir, 'trees', 'api'), { recursive: true });
    const again = await runner(boardFile('## Git Worktree api\n- [ ] two\n'), ['--worktree', '--', 'sh', '-c', COMMIT], { cwd: r.dir, env: r.env }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(r.git(['rev-list', '--count', 'main..api']).out).toBe('2');
    // The person's worktree is still registered: back on its disk, its staged change is there.
    renameSync(join(r.scratch, 'unplugged'), disk);
    expect(r.git(['worktree', 'list', '--porcelain']).out).toContain(`worktree ${join(disk, 'mine')}\n`);
    expect(r.git(['diff', '--cached', '--name-only'], join(disk, 'mine')).out).toBe('staged.txt');
  });

  it('uses a person\'s existing branch for its section as it is, says so, and records it as not mdclaim\'s', async () => {
    const r = repo();
    expect(r.git(['branch', 'release']).status).toBe(0);
    const mine = join(r.scratch, 'mine');
    expect(r.git(['worktree', 'add', '-q', mine, 'release']).status).toBe(0);
    writeFileSync(join(mine, 'notes.txt'), 'my release notes\n');
    r.git(['add', 'notes.txt'], mine);
    r.git(['commit', '-q', '-m', 'my notes'], mine);
    expect(r.git(['worktree', 'remove', mine]).status).toBe(0);
    const own = r.git(['rev-parse', 'release']).out;
    const file = boardFile('## Git Worktree release\n- [ ] ship it\n');
    const end = await runner(file, ['--worktree', '--', 'sh', '-c', 'echo shipped > shipped.txt && git add . && git commit -qm shipped'], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toMatch(/^mdclaim: \w+ in .*\/trees\/release \(branch release, using existing branch release\)$/m);
    expect(r.git(['rev-parse', 'release^']).out).toBe(own);
    const gitDir = r.git(['rev-parse', '--absolute-git-dir'], join(r.dir, 'trees', 'release')).out;
    expect(JSON.parse(readFileSync(join(gitDir, 'mdclaim.json'), 'utf8'))).toMatchObject({ branch: 'release', madeBranch: false });
    expect(r.git(['config', '--get', 'branch.release.mdclaimBase']).status).toBe(1);
  });

  it('doctor in a worktree finds the pre-commit hook working with the main checkout\'s mdclaim, as git runs it', () => {
    const r = repo();
    mkdirSync(join(r.dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(fileURLToPath(new URL('../bin/mdclaim.cjs', import.meta.url)), join(r.dir, 'node_modules', '.bin', 'mdclaim'));
    appendFileSync(join(r.dir, '.git', 'info', 'exclude'), 'node_modules/\n');
    copyFileSync(fileURLToPath(new URL('../examples/pre-commit', import.meta.url)), join(r.dir, '.git', 'hooks', 'pre-commit'));
    const tree = join(r.dir, 'trees', 'api');
    expect(r.git(['worktree', 'add', '-q', '-b', 'api', tree]).status).toBe(0);
    writeFileSync(join(tree, 'tasks.md'), '- [ ] one\n');
    const doctor = spawnSync(process.execPath, [CLI, 'doctor', '--json', '--file', join(tree, 'tasks.md')], { cwd: tree, env: { ...process.env, PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    const hooks = (JSON.parse(doctor.stdout).findings as { check: string; verdict: string; says: string }[]).filter((f) => f.check === 'hooks');
    expect(hooks).toEqual([expect.objectContaining({ verdict: 'ok', says: `pre-commit installed; it finds ${join(r.dir, 'node_modules', '.bin', 'mdclaim')}` })]);
  });

  it('runs ./agent.sh as it was where the runner started, not inside the worktree; a missing one is named where it was looked for', async () => {
    const r = repo();
    // Untracked in the main checkout: the worktree has no copy of it.
    writeFileSync(join(r.dir, 'agent.sh'), '#!/bin/sh\npwd > "$MDCLAIM_TASK_ID.where"\n');
    chmodSync(join(r.dir, 'agent.sh'), 0o755);
    const file = boardFile('## Git Worktree api\n[] build it\n');
    const end = await runner(file, ['--worktree', '--', './agent.sh'], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    const [task] = await openBoard(file).list();
    expect(task).toMatchObject({ status: 'done' });
    expect(readFileSync(join(r.dir, 'trees', 'api', `${task!.id}.where`), 'utf8')).toBe(`${join(r.dir, 'trees', 'api')}\n`);

    const missing = boardFile('## Git Worktree web\n- [ ] build it\n');
    const before = bytesOf(missing);
    const refused = await runner(missing, ['--worktree', '--', './missing.sh'], { cwd: r.dir, env: r.env }).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error[COMMAND]: command not found: ${join(r.dir, 'missing.sh')} (no such file: ${join(r.dir, 'missing.sh')}); the task was given back\n`);
    expect(bytesOf(missing)).toEqual(before);
  });
});
