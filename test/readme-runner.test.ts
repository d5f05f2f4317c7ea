import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from './helpers/runner.js';
import { boardFile, read } from './helpers/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const snippet = /### From a polling trigger\n[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];

// The README's library loop as a user would paste it: a .mjs file in a fresh
// project, with a `claude` on PATH that stands in for the agent.
describe("the README's runTasks snippet", () => {
  it.each([
    ['marks the task done when the command succeeds', 'exit 0', /^- \[✅( \S+)?, agent-7\] Add the \/health endpoint \{backend\}$/m, 'done'],
    [
      'stops and writes nothing when the task is taken over while the command runs',
      // The agent's run outlives the lease (a clock an hour on) and someone else takes the task over.
      `node --input-type=module -e "import { openBoard } from 'mdclaim'; await openBoard('tasks.md', { now: () => Date.now() + 3600000 }).claim(process.env.MDCLAIM_TASK_ID, { by: 'thief' })"`,
      /^- \[🟡, thief, [^\]]+\] Add the \/health endpoint \{backend\}$/m,
      'lost',
    ],
  ])('%s', async (_name, agent, line, outcome) => {
    expect(snippet).toBeDefined();
    const board = boardFile('## api\n- [ ] Add the /health endpoint {backend}\n');
    const project = dirname(board);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0' }));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules', 'mdclaim'));
    mkdirSync(join(project, 'bin'));
    writeFileSync(join(project, 'bin', 'claude'), `#!/bin/sh\n[ "$1" = -p ] && [ "$2" = "$MDCLAIM_TASK_TEXT" ] || exit 9\n${agent}\n`);
    chmodSync(join(project, 'bin', 'claude'), 0o755);
    writeFileSync(join(project, 'trigger.mjs'), snippet!);
    const child = spawn(process.execPath, ['trigger.mjs'], {
      cwd: project,
      env: { ...process.env, PATH: `${join(project, 'bin')}:${process.env['PATH']}` },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // It loops: once the task has ended, stop it as a service manager would.
    await until('the task to end', () => stderr.includes(`"event":"${outcome}"`));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(read(board)).toMatch(line);
    expect(stderr).toMatch(new RegExp(`outcome: '${outcome}'`));
  });
});
