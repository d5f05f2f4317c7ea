import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { mdclaim } from '../helpers/cli.js';
import { repo } from '../helpers/git.js';
import { until } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// The shipped pre-commit and pre-push hooks fence git with the claim: real commits and pushes in a real repository.

const HOOKS = ['pre-commit', 'pre-push'].map((h) => [h, fileURLToPath(new URL(`../../examples/${h}`, import.meta.url))] as const);
const BIN = fileURLToPath(new URL('../../bin/mdclaim.cjs', import.meta.url));

describeKinds('the shipped git hooks on the $name board', (kind) => {
  it('refuse a commit and a push made under a claim taken over since, naming the new holder, and let the new holder commit and push', async () => {
    const { location } = await kind.make('# Work\n\n- [ ] fix the bug\n');
    const r = repo();
    // The project's mdclaim where a project has it, and on PATH for the pre-commit hook.
    mkdirSync(join(r.dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(r.dir, 'node_modules', '.bin', 'mdclaim'));
    writeFileSync(join(r.dir, '.gitignore'), 'node_modules/\n');
    for (const [name, path] of HOOKS) copyFileSync(path, join(r.dir, '.git', 'hooks', name));
    const remote = join(r.scratch, 'remote.git');
    expect(spawnSync('git', ['init', '-q', '--bare', remote]).status).toBe(0);
    r.git(['remote', 'add', 'origin', remote]);

    const id = JSON.parse(mdclaim(['list', '--json', '--file', location]).stdout).tasks[0].id as string;
    const claim = (by: string, lease: string) => mdclaim(['claim', id, '--by', by, '--lease', lease, '--json', '--file', location]);
    const first = claim('r1', '2s');
    expect(first.status).toBe(0);
    const claimOf = (by: string, at: string) => ({ MDCLAIM_TASK_ID: id, MDCLAIM_BY: by, MDCLAIM_CLAIMED_AT: at, MDCLAIM_FILE: location });
    const r1 = claimOf('r1', JSON.parse(first.stdout).task.claimedAt);
    const git = (args: string[], env: Record<string, string>) => {
      const res = spawnSync('git', args, { cwd: r.dir, env: { ...process.env, ...r.env, PATH: `${join(r.dir, 'node_modules', '.bin')}:${process.env['PATH']}`, ...env }, encoding: 'utf8' });
      return { status: res.status, err: res.stderr };
    };
    const commit = (env: Record<string, string>, name: string) => {
      writeFileSync(join(r.dir, name), name);
      git(['add', name], env);
      return git(['commit', '-q', '-m', name], env);
    };

    expect(commit(r1, 'one.txt')).toMatchObject({ status: 0 });
    expect(mdclaim(['heartbeat', id, '--by', 'r1', '--file', location]).status).toBe(0);
    expect(commit(r1, 'renewed.txt')).toMatchObject({ status: 0 }); // a heartbeat keeps the claim its own

    const taken = await until('the takeover', () => {
      const c = claim('r2', '1h');
      return c.status === 0 ? c : undefined;
    }, 100);
    const r2 = claimOf('r2', JSON.parse(taken.stdout).task.claimedAt);

    const refused = commit(r1, 'stale.txt');
    expect(refused.status).not.toBe(0);
    expect(refused.err).toMatch(new RegExp(`^error\\[CONFLICT\\]: ${id} "fix the bug" is claimed by r2 since \\S+; the claim by r1 at ${r1.MDCLAIM_CLAIMED_AT} is gone\\n$`));
    expect(git(['push', '-q', 'origin', 'HEAD:refs/heads/work'], r1)).toMatchObject({ status: 1, err: expect.stringMatching(/^error\[CONFLICT\]: .* is claimed by r2 /) });

    expect(commit(r2, 'stale.txt')).toMatchObject({ status: 0 });
    expect(git(['push', '-q', 'origin', 'HEAD:refs/heads/work'], r2)).toMatchObject({ status: 0 });
    expect(git(['push', '-q', 'origin', 'HEAD:refs/heads/plain'], {})).toMatchObject({ status: 0 }); // no claim in the environment: not checked
  });
});
