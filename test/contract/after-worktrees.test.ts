import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import { CLI } from '../helpers/cli.js';
import { repo } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// A task that waits for a task of another section runs in its own section's worktree; `worktrees`
// says, for each worktree, what its tasks wait for elsewhere (see docs/worktrees.md).

const API = textHash('api 1', 0, 5);
const BOARD = `## Git Worktree api\n[] api 1\n\n## Git Worktree web\n[] web 1\n[] web 2 {after: ${API}}\n`;

describeKinds('worktrees whose tasks wait for another section, on the $name board', (kind) => {
  it('lists what each worktree waits for, with the task\'s state and the worktree it runs in', async () => {
    const { location } = await kind.make(BOARD);
    const r = repo();
    const end = await runner(location, ['--worktree', '--section', 'web', '--max', '1', '--no-commit', '--by', 'r1', '--', 'true'], { cwd: r.dir, env: r.env }).done;
    expect(end.code).toBe(0);
    const cli = (args: string[]) => spawnSync(process.execPath, [CLI, 'worktrees', '--file', location, ...args], { cwd: r.dir, env: { ...process.env, ...r.env }, encoding: 'utf8' });
    const json = JSON.parse(cli(['--json']).stdout) as { worktrees: { name: string; waitsFor?: unknown }[] };
    expect(json.worktrees.map((w) => [w.name, w.waitsFor ?? null])).toEqual([['web', [{ id: API, status: 'open', worktree: 'api' }]]]);
    expect(cli([]).stdout).toMatch(new RegExp(`^web .*  waits for ${API} \\(open, in api\\)\\n$`));
  });
});
