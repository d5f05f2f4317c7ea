import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { CLI, cleanEnv } from '../helpers/cli.js';
import { repo } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// Inside a worktree `run --worktree` made, commands without --file, the shipped pre-commit hook and doctor use the board the runner used.

const BIN = fileURLToPath(new URL('../../bin/mdclaim.cjs', import.meta.url));
const HOOK = fileURLToPath(new URL('../../examples/pre-commit', import.meta.url));

describeKinds('a worktree of run --worktree on the $name board', (kind) => {
  it('reads the runner\'s board in commands without --file, the pre-commit hook and doctor', async () => {
    const { location, board } = await kind.make('## Git Worktree api\n- [ ] build it\n');
    const r = repo();
    mkdirSync(join(r.dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(r.dir, 'node_modules', '.bin', 'mdclaim'));
    appendFileSync(join(r.dir, '.git', 'info', 'exclude'), 'node_modules/\n');
    copyFileSync(HOOK, join(r.dir, '.git', 'hooks', 'pre-commit'));
    const end = await runner(location, ['--worktree', '--by', 'r1', '--', 'true'], { cwd: r.dir, env: r.env }).done;
    expect(end.code, end.stderr).toBe(0);
    const tree = join(r.dir, 'trees', 'api');
    const [task] = await board.list();

    const list = spawnSync(process.execPath, [CLI, 'list', '--json'], { cwd: tree, env: cleanEnv(r.env), encoding: 'utf8' });
    expect(list.stderr).toBe('');
    expect(JSON.parse(list.stdout).tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([[task!.id, 'done']]);

    // The task goes to r2; a commit made under r1's old claim is refused by the hook, naming r2, from the runner's board.
    expect(spawnSync(process.execPath, [CLI, 'reopen', task!.id, '--file', location], { env: cleanEnv({}) }).status).toBe(0);
    expect(spawnSync(process.execPath, [CLI, 'claim', task!.id, '--by', 'r2', '--file', location], { env: cleanEnv({}) }).status).toBe(0);
    writeFileSync(join(tree, 'late.txt'), 'late\n');
    r.git(['add', 'late.txt'], tree);
    const commit = spawnSync('git', ['commit', '-q', '-m', 'late'], { cwd: tree, env: cleanEnv({ ...r.env, MDCLAIM_TASK_ID: task!.id, MDCLAIM_BY: 'r1', MDCLAIM_CLAIMED_AT: task!.claimedAt ?? '2026-01-01T00:00:00Z' }), encoding: 'utf8' });
    expect(commit.status).not.toBe(0);
    expect(commit.stderr).toMatch(/^error\[CONFLICT\]: .* is claimed by r2 since .*; the claim by r1 at .* is gone$/m);

    const doctor = spawnSync(process.execPath, [CLI, 'doctor', '--json'], { cwd: tree, env: cleanEnv(r.env), encoding: 'utf8' });
    const findings = JSON.parse(doctor.stdout).findings as { check: string; verdict: string; says: string }[];
    // Nothing fails: the board is the runner's, and a hook finds the main checkout's mdclaim, as it does when git runs it.
    expect(findings.filter((f) => f.verdict === 'fail')).toEqual([]);
    expect(doctor.status).toBe(0);
  });
});
