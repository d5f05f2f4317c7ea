import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { repo } from './helpers/git.js';
import { runner } from './helpers/runner.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// run --worktree at its edges, in a real repository with real processes.

describe('run --worktree at its edges', () => {
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
