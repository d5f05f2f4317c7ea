import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanAfterEach } from './cleanup.js';

// A scratch git repository for the worktree tests: a real one, made with git, removed after the test.

const dirs: string[] = [];

cleanAfterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Who commits, and no user or system configuration of this machine's in the way. */
export function gitEnv(home: string): Record<string, string> {
  return { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: home };
}

export interface Repo {
  dir: string;
  /** A directory beside the repository, for a test's files (logs, a remote), removed with it. */
  scratch: string;
  env: Record<string, string>;
  /** git in the repository (or in `cwd`): its status and output, trimmed. */
  git(args: string[], cwd?: string): { status: number; out: string; err: string };
  /** The main checkout as a person would compare it: HEAD, the index, and what status shows. */
  snapshot(): string;
}

/** A repository on branch main with one commit holding README.md. */
export function repo(): Repo {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mdclaim-git-')));
  dirs.push(root);
  const dir = join(root, 'repo');
  const scratch = join(root, 'scratch');
  mkdirSync(dir);
  mkdirSync(scratch);
  const env = gitEnv(dir);
  const git = (args: string[], cwd = dir) => {
    const r = spawnSync('git', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
    return { status: r.status ?? -1, out: r.stdout.trim(), err: r.stderr.trim() };
  };
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  git(['add', 'README.md']);
  git(['commit', '-q', '-m', 'start']);
  const snapshot = () => [git(['rev-parse', 'HEAD']).out, git(['ls-files', '-s']).out, git(['status', '--porcelain', '--untracked-files=all']).out].join('\n--\n');
  return { dir, scratch, env, git, snapshot };
}
