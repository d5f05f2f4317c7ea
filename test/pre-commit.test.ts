import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boardFile } from './helpers/tmp.js';

// The shipped pre-commit hook, run by a real `git commit` in a scratch repository.

const HOOK = fileURLToPath(new URL('../examples/pre-commit', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/mdclaim.cjs', import.meta.url));
const NOW = new Date().toISOString().slice(0, 19) + 'Z';

/** A repository with the board at its root, the hook installed and `mdclaim` on PATH. */
function repo(board: string) {
  const dir = dirname(boardFile(board));
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'mdclaim'));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env['PATH']}`, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1', HOME: dir };
  for (const k of Object.keys(env)) if (k.startsWith('MDCLAIM_') || k === 'AGENT') delete env[k];
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  git('init', '-q');
  writeFileSync(join(dir, '.gitignore'), '.bin/\n');
  git('add', 'tasks.md', '.gitignore');
  git('commit', '-q', '--no-verify', '-m', 'board');
  copyFileSync(HOOK, join(dir, '.git', 'hooks', 'pre-commit'));
  const stage = (name: string) => {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), name);
    return git('add', '--', name);
  };
  const commit = (by?: string) => {
    env['MDCLAIM_BY'] = by;
    if (by === undefined) delete env['MDCLAIM_BY'];
    return git('commit', '-q', '--allow-empty', '-m', 'work');
  };
  return { git, stage, commit };
}

const BOARD = `# Work\n\n- [🟡, dana, ${NOW}] Refactor the login {writes: src/auth/}\n- [🟡, eve, ${NOW}] Docs {writes: README.md}\n- [ ] Free\n`;

describe('the shipped pre-commit hook', () => {
  it('lets a commit with nothing staged through', () => {
    const r = repo(BOARD);
    expect(r.commit('eve')).toMatchObject({ status: 0 });
  });

  it('lets through a staged name holding a blank, a comma or a quote that nobody holds', () => {
    const r = repo(BOARD);
    for (const name of ['notes/my notes.md', 'a b.txt', 'x,y.txt', 'q"uote.txt', 'src/auth x/z.ts']) expect(r.stage(name).status).toBe(0);
    expect(r.commit('eve')).toMatchObject({ status: 0 });
  });

  it('refuses a staged file another claim holds, naming the holder, also through a directory and a name with a blank', () => {
    for (const [name, holder] of [['src/auth/login.ts', 'dana holds src/auth/'], ['src/auth/my file.ts', 'dana holds src/auth/'], ['README.md', 'eve holds README.md']]) {
      const r = repo(BOARD);
      r.stage(name!);
      r.stage('free.txt');
      const c = r.commit('zoe');
      expect(c.status).toBe(1);
      expect(c.out).toMatch(new RegExp(`^error\\[CONFLICT\\]: ${holder} \\(write\\) on \\w+ "[^"]*"\n$`));
    }
  });

  it("lets the holder commit its own paths, and with no name takes every hold as someone else's", () => {
    const r = repo(BOARD);
    r.stage('src/auth/login.ts');
    expect(r.commit()).toMatchObject({ status: 1 });
    expect(r.commit('dana')).toMatchObject({ status: 0 });
  });
});
