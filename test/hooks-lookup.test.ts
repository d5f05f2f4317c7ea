import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { repo } from './helpers/git.js';
import { boardFile } from './helpers/tmp.js';

// How the shipped git hooks find mdclaim, with real git running them: the same lines in both,
// the project's own or one on PATH, and never npx (which asks the registry).

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const BIN = fileURLToPath(new URL('../bin/mdclaim.cjs', import.meta.url));
const LOOKUP = /# --- find mdclaim:[^\n]*\n[\s\S]*?# --- end of find mdclaim ---\n/;

/** A repository with both hooks installed and a bare remote, and a PATH of `bin` (first), node, and the system's tools. */
function hooked() {
  const r = repo();
  for (const hook of ['pre-commit', 'pre-push']) copyFileSync(example(hook), join(r.dir, '.git', 'hooks', hook));
  const remote = join(r.scratch, 'remote.git');
  expect(spawnSync('git', ['init', '-q', '--bare', remote]).status).toBe(0);
  r.git(['remote', 'add', 'origin', remote]);
  const bin = join(r.scratch, 'bin');
  mkdirSync(bin);
  // An npx that says it was asked: the hooks must never get that far.
  const asked = join(r.scratch, 'npx-was-asked');
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\necho "$@" >> "${asked}"\nexit 1\n`);
  chmodSync(join(bin, 'npx'), 0o755);
  const PATH = [bin, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  const git = (args: string[], env: Record<string, string> = {}) => {
    const res = spawnSync('git', args, { cwd: r.dir, env: { ...process.env, ...r.env, PATH, ...env }, encoding: 'utf8' });
    return { status: res.status, err: res.stderr };
  };
  return { r, bin, asked, git };
}

describe('the shipped hooks find mdclaim', () => {
  it('with the same lines in pre-commit and pre-push', () => {
    const [commit, push] = ['pre-commit', 'pre-push'].map((h) => readFileSync(example(h), 'utf8').match(LOOKUP)?.[0]);
    expect(commit).toBeDefined();
    expect(push).toBe(commit);
    expect(commit).not.toMatch(/^[^\n#]*\bnpx\b/m); // npx only in its comment
  });

  it('on PATH when the project has none: pre-push fences with it, npx is never asked', () => {
    const { r, bin, asked, git } = hooked();
    writeFileSync(join(bin, 'mdclaim'), `#!/bin/sh\necho "$*" >> "${join(r.scratch, 'mdclaim-ran')}"\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'mdclaim'), 0o755);
    const board = boardFile('- [ ] fix the bug\n');
    const claimed = JSON.parse(mdclaim(['next', '--by', 'r1', '--lease', '1h', '--json', '--file', board]).stdout).task;
    const claim = { MDCLAIM_TASK_ID: claimed.id, MDCLAIM_BY: 'r1', MDCLAIM_CLAIMED_AT: claimed.claimedAt, MDCLAIM_FILE: board };
    writeFileSync(join(r.dir, 'fix.txt'), 'fixed\n');
    expect(git(['add', 'fix.txt'])).toMatchObject({ status: 0 });
    expect(git(['commit', '-q', '-m', 'fix'], claim)).toMatchObject({ status: 0 });
    expect(git(['push', '-q', 'origin', 'HEAD:refs/heads/fix'], claim)).toMatchObject({ status: 0, err: '' });
    expect(readFileSync(join(r.scratch, 'mdclaim-ran'), 'utf8').split('\n')).toContain('fence');
    expect(existsSync(asked)).toBe(false);
  });

  it('nowhere: each hook refuses in one line naming itself, and npx is never asked', () => {
    const { r, asked, git } = hooked();
    const claim = { MDCLAIM_TASK_ID: 'abc', MDCLAIM_BY: 'r1', MDCLAIM_CLAIMED_AT: '2026-01-01T00:00:00Z' };
    writeFileSync(join(r.dir, 'a.txt'), 'a\n');
    expect(git(['add', 'a.txt'])).toMatchObject({ status: 0 });
    expect(git(['commit', '-q', '-m', 'a'])).toEqual({ status: 1, err: `pre-commit: mdclaim not found: run npm install mdclaim in ${r.dir} (or use git's --no-verify)\n` });
    expect(git(['push', '-q', 'origin', 'HEAD:refs/heads/a'], claim)).toMatchObject({ status: 1, err: expect.stringMatching(new RegExp(`^pre-push: mdclaim not found: run npm install mdclaim in ${r.dir} \\(or use git's --no-verify\\)\\nerror: failed to push`)) });
    expect(existsSync(asked)).toBe(false);
  });
});
