import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { CLI } from './helpers/cli.js';
import { eventsIn, runner, until } from './helpers/runner.js';
import { boardFile, read } from './helpers/tmp.js';

// Under mdclaim run, a command told to finish its task (`mdclaim done|fail
// "$MDCLAIM_TASK_ID"` with its MDCLAIM_BY) ends it that way: not a lost claim.

const MDCLAIM = `"${process.execPath}" "${CLI}"`;

describe('a command that ends its own task under mdclaim run', () => {
  it('is reported done (exit 0) when it runs mdclaim done itself and exits', async () => {
    const file = boardFile('- [ ] one\n');
    const events = join(dirname(file), 'events');
    const r = runner(file, ['--by', 'r1', '--no-commit', '--events', events, '--', 'sh', '-c', `${MDCLAIM} done "$MDCLAIM_TASK_ID" --by "$MDCLAIM_BY" --commit abc123`]);
    const end = await r.done;
    expect([end.code, end.stderr]).toEqual([0, expect.stringContaining('mdclaim: done ')]);
    expect(end.stderr).not.toContain('lost');
    expect(read(file)).toBe('- [✅ abc123, r1] one\n');
    expect(eventsIn(events).map((e) => e.event)).toContain('done');
  });

  it('is reported failed with its own reason when it runs mdclaim fail itself, whatever its exit status', async () => {
    const file = boardFile('- [ ] one\n');
    const r = runner(file, ['--by', 'r1', '--no-commit', '--', 'sh', '-c', `${MDCLAIM} fail "$MDCLAIM_TASK_ID" --by "$MDCLAIM_BY" --reason "no way"; exit 0`]);
    const end = await r.done;
    expect(end.code).toBe(1);
    expect(end.stderr).toMatch(/mdclaim: failed [0-9a-f]{12} after \S+: no way\n/);
    expect(read(file)).toBe('- [❌, r1] one // Failed: no way\n');
  });

  it('is not stopped when a heartbeat finds the task done while the command goes on after its done', async () => {
    const file = boardFile('- [ ] one\n');
    const dir = dirname(file);
    const go = join(dir, 'go');
    // Done at once, then it keeps working until told to stop: heartbeats (every 0.5 s at a 2 s lease) meet a finished task meanwhile.
    const script = `${MDCLAIM} done "$MDCLAIM_TASK_ID" --by "$MDCLAIM_BY" && while [ ! -e '${go}' ]; do sleep 0.05; done; echo finished > '${join(dir, 'finished')}'`;
    const events = join(dir, 'events');
    const r = runner(file, ['--by', 'r1', '--lease', '2s', '--no-commit', '--events', events, '--', 'sh', '-c', script]);
    await until('the command to mark its task done', async () => (await openBoard(file).list())[0]!.status === 'done');
    // A heartbeat has met the finished task: the runner says so, and the command must still be running.
    await until('the runner to see the task ended by its command', async () => eventsIn(events).some((e) => e.event === 'ended'));
    expect(eventsIn(events).find((e) => e.event === 'ended')).toMatchObject({ status: 'done' });
    expect(existsSync(join(dir, 'finished'))).toBe(false);
    writeFileSync(go, '');
    const end = await r.done;
    expect(end.code).toBe(0);
    expect(existsSync(join(dir, 'finished'))).toBe(true);
    expect(end.stderr).not.toContain('lost');
  });

  it('still reports lost (exit 4) when the task was finished by someone else', async () => {
    const file = boardFile('- [ ] one\n');
    const dir = dirname(file);
    const go = join(dir, 'go');
    const r = runner(file, ['--by', 'r1', '--no-commit', '--', 'sh', '-c', `while [ ! -e '${go}' ]; do sleep 0.05; done`]);
    await until('the claim', async () => (await openBoard(file).list())[0]!.status === 'claimed');
    // Someone edits the claim away and finishes the task under another name: not this command's ending.
    const board = openBoard(file);
    const release = await board.hold();
    writeFileSync(file, '- [✅, someone] one\n');
    release();
    writeFileSync(go, '');
    const end = await r.done;
    expect(end.code).toBe(4);
    expect(end.stderr).toContain('mdclaim: lost ');
  });
});
