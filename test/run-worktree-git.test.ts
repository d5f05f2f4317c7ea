import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdclaimIn } from './helpers/cli.js';
import { repo } from './helpers/git.js';
import { boardFile } from './helpers/tmp.js';

// How many git processes a run starts per task: each one is a fork and an
// exec on every task, so the count is kept, command by command.

/** A git on PATH that logs its arguments, one line a call, to the file it returns. */
function countingGit(scratch: string): { path: string; log: string } {
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  const log = join(scratch, 'git.log');
  writeFileSync(log, '');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> "${log}"\nexec ${real} "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { path: `${bin}:${process.env['PATH']}`, log };
}

/** The calls, their commits and paths blanked, sorted and counted. */
function calls(log: string): string[] {
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const blank = lines.map((l) => l.replace(/\b[0-9a-f]{40}\b/g, 'C').replace(/task-[0-9a-f]+/g, 'task-ID').replace(/ \/\S+/g, ' PATH'));
  const counted = new Map<string, number>();
  for (const l of blank) counted.set(l, (counted.get(l) ?? 0) + 1);
  return [...counted].sort(([a], [b]) => (a < b ? -1 : 1)).map(([l, n]) => `${n} ${l}`);
}

describe('git processes per task', () => {
  it('run --worktree: three tasks, two sharing a section\'s worktree, start 22 git processes, each worktree made once', () => {
    const r = repo();
    const git = countingGit(r.scratch);
    const file = boardFile('## Git Worktree api\n- [ ] first\n- [ ] second\n\n## Other\n- [ ] third\n');
    const run = mdclaimIn(r.dir, ['run', '--file', file, '--worktree', '--until-settled', '--interval', '1s', '--', 'sh', '-c', 'echo x > "f-$MDCLAIM_TASK_ID"'], { env: { ...r.env, PATH: git.path } });
    expect(run.status, run.stderr).toBe(0);
    expect(calls(git.log)).toEqual([
      '1 branch --no-track api C',
      '1 branch --no-track task-ID C',
      '1 check-ignore -q trees/',
      '1 config branch.api.mdclaimBase C',
      '1 config branch.api.mdclaimBaseRef main',
      '1 config branch.task-ID.mdclaimBase C',
      '1 config branch.task-ID.mdclaimBaseRef main',
      '3 rev-parse --short HEAD',
      '1 rev-parse --show-toplevel --git-common-dir',
      '3 rev-parse HEAD^{commit} --abbrev-ref HEAD',
      '3 status --porcelain --untracked-files=all',
      '1 worktree add --quiet PATH api',
      '1 worktree add --quiet PATH task-ID',
      '3 worktree list --porcelain',
    ]);
  });

  it('run without --worktree: one git process a task, the commit recorded; none with --no-commit', () => {
    const r = repo();
    const git = countingGit(r.scratch);
    const file = boardFile('- [ ] first\n- [ ] second\n');
    expect(mdclaimIn(r.dir, ['run', '--file', file, '--max', '2', '--until-settled', '--', 'true'], { env: { ...r.env, PATH: git.path } }).status).toBe(0);
    expect(calls(git.log)).toEqual(['2 rev-parse --short HEAD']);
    writeFileSync(git.log, '');
    writeFileSync(file, '- [ ] third\n');
    expect(mdclaimIn(r.dir, ['run', '--file', file, '--no-commit', '--', 'true'], { env: { ...r.env, PATH: git.path } }).status).toBe(0);
    expect(calls(git.log)).toEqual([]);
  });
});
