import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from './helpers/cli.js';
import { repo } from './helpers/git.js';
import { runner, until } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// An agent committing in a loop in its worktree while `mdclaim worktrees` and
// `worktrees prune` read that worktree again and again: real git, real processes.

const STEPS = 300;

// Each step changes a tracked file and commits it (git commit -a: the index, under index.lock); a step fails when the commit does.
const LOOP = `
fails=0; i=0
echo 0 > step.txt && git add step.txt || exit 1
while [ $i -lt ${STEPS} ]; do
  i=$((i+1))
  echo "$i" > step.txt
  git commit -q -a -m "step $i" 2>>"$ERR" || fails=$((fails+1))
  [ $i -ne 5 ] || : > "$STARTED"
done
echo "$fails" > "$DONE"
`;

/** The built CLI in `cwd`, not waited for by blocking: the agent's loop runs meanwhile. */
function cli(args: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('worktrees and prune reading a live worktree', () => {
  it(`take no lock of git's: an agent's ${STEPS} commits in a loop all go through while they run over and over`, async () => {
    const file = boardFile('## Git Worktree live\n[] make the worktree\n');
    const r = repo();
    const made = await runner(file, ['--worktree', '--until-settled', '--interval', '100ms', '--', 'true'], { cwd: r.dir, env: r.env }).done;
    expect(made.code).toBe(0);
    const tree = join(r.dir, 'trees', 'live');
    const [err, started, done] = ['err', 'started', 'done'].map((n) => join(r.scratch, n)) as [string, string, string];

    const agent = spawn('sh', ['-c', LOOP], { cwd: tree, env: { ...process.env, ...r.env, ERR: err, STARTED: started, DONE: done }, stdio: 'ignore' });
    const exited = new Promise((resolve) => agent.on('close', resolve));
    try {
      await until('the loop to start', () => existsSync(started));
      let reads = 0;
      while (!existsSync(done)) {
        const [listed, pruned] = await Promise.all([cli(['worktrees', '--json', '--file', file], r.dir, r.env), cli(['worktrees', 'prune', '--file', file], r.dir, r.env)]);
        expect(listed).toMatchObject({ status: 0, stderr: '' });
        expect(pruned).toMatchObject({ status: 0, stdout: expect.stringMatching(/^kept live: /) });
        reads++;
      }
      await exited;
      expect({ failed: readFileSync(done, 'utf8'), said: existsSync(err) ? readFileSync(err, 'utf8') : '' }).toEqual({ failed: '0\n', said: '' });
      expect(reads).toBeGreaterThan(0);
      expect(r.git(['rev-list', '--count', 'live']).out).toBe(String(STEPS + 1));
    } finally {
      agent.kill('SIGKILL');
    }
  }, 180_000);
});
