import { expect, it } from 'vitest';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// A command that cannot start is the runner's mistake: no task may be failed for it, on any board.

const BOARD = '# Work\n\n- [ ] one\n- [ ] two\n[] three\n';

describeKinds('mdclaim run with a command that cannot start, on the $name board', (kind) => {
  it.each([
    ['a shell that cannot find the program (exit 127)', ['sh', '-c', 'claud -p x'], /^error\[COMMAND\]: command not found: sh -c 'claud -p x' \(exit 127: .*claud.*\); the task was given back$/],
    ['a shell that cannot execute it (exit 126)', ['sh', '-c', '/dev/null'], /^error\[COMMAND\]: command not executable: sh -c \/dev\/null \(exit 126: .*\); the task was given back$/],
    ['a program not in PATH', ['claud', '-p', 'x'], /^error\[COMMAND\]: command not found: claud -p x \(not found in PATH\); the task was given back$/],
  ])('%s: --loop stops at the first task with exit 1 and one line naming the command, every task left open', async (_, command, line) => {
    const { location, board, bytes } = await kind.make(BOARD);
    const before = await bytes();
    const end = await runner(location, ['--loop', '--by', 'r1', '--', ...command]).done;
    expect(end.code).toBe(1);
    const errors = end.stderr.split('\n').filter((l) => l.startsWith('error['));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(line);
    expect(await bytes()).toEqual(before);
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'open', 'open']);
  });
});
