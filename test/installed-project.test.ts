import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/packed.js';

// What a user does after `npm install mdclaim` in a project of their own, with
// no mdclaim anywhere on PATH: the README's commands as written, a runner
// whose command finishes its own task, and the shipped pre-commit hook.

let work = '';
let project = '';
/** A PATH with node, npm and npx, git and sh, and no mdclaim. */
const PATH = [...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':');
const NOW = new Date().toISOString().slice(0, 19) + 'Z';

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { HOME: work, PATH, LANG: 'C.UTF-8', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };
  // npm's cache, so npx and npm stay offline as the install was.
  e['npm_config_cache'] = process.env['npm_config_cache'] ?? join(process.env['HOME'] ?? '/root', '.npm');
  return { ...e, ...extra };
}

const sh = (script: string, extra: Record<string, string> = {}, cwd = project) => spawnSync('sh', ['-c', script], { cwd, env: env(extra), encoding: 'utf8', timeout: 240_000 });

/** The first ```sh block after `heading` in the README. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf(heading);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  if (from < 0 || !m) throw new Error(`no sh block after ${heading} in README.md`);
  return m[1]!;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'mdclaim-project-'));
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as [{ filename: string }];
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true }));
  // --ignore-scripts: no native build, so the lock is koffi's (either provider takes the same lock).
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, packed[0].filename)], { cwd: project, env: env(), stdio: 'ignore' });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a project that ran npm install mdclaim, with no mdclaim on PATH', () => {
  it('has no mdclaim on PATH but its own', () => {
    expect(sh('command -v mdclaim').status).not.toBe(0);
    expect(sh('npx --no-install mdclaim --version').stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("runs the README's shell loop as written", () => {
    writeFileSync(join(project, 'tasks.md'), '- [ ] one\n- [ ] two\n- [ ] three\n');
    const r = sh(`work() { echo "working on $1"; }\n${readmeBlock('### From the shell')}`, { AGENT: 'agent-1' });
    expect(r.stderr).not.toMatch(/not found|error\[/);
    expect([r.status, readFileSync(join(project, 'tasks.md'), 'utf8')]).toEqual([0, '- [✅, agent-1] one\n- [✅, agent-1] two\n- [✅, agent-1] three\n']);
  });

  it.each([
    ['./node_modules/.bin/mdclaim', './node_modules/.bin/mdclaim run'],
    ['the package bin run by node', `${JSON.stringify(process.execPath)} node_modules/mdclaim/bin/mdclaim.cjs run`],
    ['npx', 'npx mdclaim run'],
  ])('runs a command that finishes its own task with mdclaim done, under %s', (_, run) => {
    writeFileSync(join(project, 'tasks.md'), '- [ ] one\n');
    const r = sh(`${run} --by r1 --no-commit -- sh -c 'echo working; mdclaim done "$MDCLAIM_TASK_ID" --by "$MDCLAIM_BY"'`);
    expect(r.stderr).not.toMatch(/not found|error\[/);
    expect([r.status, readFileSync(join(project, 'tasks.md'), 'utf8')]).toEqual([0, '- [✅, r1] one\n']);
  });

  it('installs the shipped pre-commit hook as the README says, and commits a free file but not a held one', () => {
    writeFileSync(join(project, 'tasks.md'), `- [🟡, dana, ${NOW}] Refactor the login {writes: src/auth/}\n- [ ] Free\n`);
    writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
    expect(sh('git init -q && git add tasks.md .gitignore package.json && git commit -q --no-verify -m board').status).toBe(0);
    const install = sh(readmeBlock('### Keep agents off each other').trim());
    expect(install.status, install.stderr).toBe(0);
    mkdirSync(join(project, 'src', 'auth'), { recursive: true });
    writeFileSync(join(project, 'src', 'free.ts'), 'free');
    writeFileSync(join(project, 'src', 'auth', 'login.ts'), 'held');
    const free = sh('git add src/free.ts && git commit -q -m free', { MDCLAIM_BY: 'eve' });
    // git shows a hook's output on stderr.
    expect([free.status, free.stderr]).toEqual([0, 'free: no live claim holds these paths\n']);
    const held = sh('git add src/auth/login.ts && git commit -q -m held', { MDCLAIM_BY: 'eve' });
    expect(held.status).not.toBe(0);
    expect(held.stderr).toMatch(/^error\[CONFLICT\]: dana holds src\/auth\/ \(write\) on /);
    expect(sh('git log --format=%s').stdout).toBe('free\nboard\n');
  });

  it('says in one line what to do when the hook finds no mdclaim at all', () => {
    const bare = join(work, 'bare');
    mkdirSync(bare);
    expect(sh('git init -q && printf "x" > a.txt && git add a.txt', {}, bare).status).toBe(0);
    copyFileSync(join(project, 'node_modules', 'mdclaim', 'examples', 'pre-commit'), join(bare, '.git', 'hooks', 'pre-commit'));
    chmodSync(join(bare, '.git', 'hooks', 'pre-commit'), 0o755);
    const r = sh('git commit -q -m a', {}, bare);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toBe(`pre-commit: mdclaim not found: run npm install mdclaim in ${bare} (or use git's --no-verify)\n`);
  });
});
