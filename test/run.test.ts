import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { DAEMON, eventsIn, groupAlive, PID, pidIn, runner, runnerBoard, tasks } from './helpers/runner.js';
import { bytesOf, read } from './helpers/tmp.js';

// mdclaim run over one pass and over --loop: what the command sees, how its
// end is recorded, and what the runner refuses.

describe('mdclaim run, one pass', () => {
  it('runs the command with the task in its environment, stdin closed and no descriptor of the runner\'s, then marks it done at the HEAD commit', async () => {
    const { file, dir, env } = runnerBoard('# Work\n\n- [ ] Write the report {docs, urgent} {writes: ./out/report.md, out//summary.md} {reads: data/}\n');
    const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'start');
    const head = git('rev-parse', '--short', 'HEAD').stdout.trim();
    // `cat` returns only at end of input: it would hang if stdin were the runner's (an open pipe here).
    const r = runner(file, ['--by', 'r1', '--', 'sh', '-c', 'cat; env | grep ^MDCLAIM_ | sort > "$DIR/env"; pwd > "$DIR/cwd"; ls /proc/$$/fd > "$DIR/fds"'], { env: env('A'), cwd: dir });
    const end = await r.done;
    expect(end.code).toBe(0);
    const seen = Object.fromEntries(read(join(dir, 'env')).trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));
    const [t] = await tasks(file);
    expect(seen).toEqual({
      MDCLAIM_BY: 'r1',
      MDCLAIM_CLAIMED_AT: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      MDCLAIM_FILE: file,
      MDCLAIM_SECTION: 'Work',
      MDCLAIM_TASK_ID: t!.id,
      MDCLAIM_TASK_TAGS: 'docs,urgent',
      MDCLAIM_TASK_TEXT: 'Write the report {docs, urgent} {writes: ./out/report.md, out//summary.md} {reads: data/}',
      MDCLAIM_TASK_WRITES: 'out/report.md,out/summary.md',
      MDCLAIM_TASK_READS: 'data/',
    });
    expect(t).toMatchObject({ status: 'done', by: 'r1', commit: head });
    // The runner's pipes to the command's start and its watchdog stay the runner's.
    expect(read(join(dir, 'fds')).split('\n')).not.toContain('3');
    expect(end.stderr).toMatch(new RegExp(`^mdclaim: done ${t!.id} in \\S+ at ${head}$`, 'm'));
    expect(end.stderr).not.toMatch(/running as/); // the id was given, so it is not announced
  });

  it('makes up a runner id and says it once; --no-commit records no commit', async () => {
    const { file } = runnerBoard('[] one\n');
    const end = await runner(file, ['--no-commit', '--', 'true']).done;
    expect(end.code).toBe(0);
    const by = /^mdclaim: running as (run-[0-9a-f]{8})$/m.exec(end.stderr)?.[1];
    expect(end.stderr.match(/running as/g)).toHaveLength(1);
    expect((await tasks(file))[0]).toMatchObject({ status: 'done', by });
    expect((await tasks(file))[0]!.commit).toBeUndefined();
  });

  it('marks a failing command failed with its exit status and last stderr line, and exits 1', async () => {
    const { file } = runnerBoard('[] build it\n');
    const end = await runner(file, ['--by', 'r1', '--', 'sh', '-c', 'echo first >&2; echo "make: *** [all] Error 2" >&2; echo; exit 3']).done;
    expect(end.code).toBe(1);
    expect((await tasks(file))[0]).toMatchObject({ status: 'failed', by: 'r1', reason: 'exit 3: make: *** [all] Error 2' });
    expect(end.stderr).toContain('first\n'); // stderr passes through
  });

  it('exits 3 with the board untouched when nothing is claimable', async () => {
    const { file } = runnerBoard('[✅, a] done\n[❌, b] broke // Failed: x\n');
    const before = bytesOf(file);
    const end = await runner(file, ['--', 'true']).done;
    expect(end.code).toBe(3);
    expect(end.stderr).toMatch(/nothing to claim/);
    expect(bytesOf(file)).toEqual(before);
  });

  it.each([
    [['--lease', '1500ms', '--', 'true'], /lease must be at least 2s/],
    [['--concurrency', '0', '--', 'true'], /--concurrency must be a whole number/],
    [['--interval', 'soon', '--loop', '--', 'true'], /interval "soon" is not a duration/],
    [['--json', '--', 'true'], /--events FILE/],
    [[], /needs a command to run/],
  ])('refuses %j as usage, with the board byte-identical', (args, message) => {
    const { file } = runnerBoard('[] one\n');
    const before = bytesOf(file);
    const r = mdclaim(['run', '--file', file, ...args]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(bytesOf(file)).toEqual(before);
  });

  it.each([
    ['stops what the command left running in its group, and is not held up by a process that left the group', 'sleep 60 &'],
    ['is not held up by a process that left the group holding its output', ''],
  ])('when the command exits, %s', async (_, straggler) => {
    const { file, dir, env, pid } = runnerBoard('[] spawns helpers\n');
    const script = `${PID}; ${straggler} ${DAEMON}; exit 0`;
    const r = runner(file, ['--by', 'r1', '--no-commit', '--', 'sh', '-c', script], { env: env('A') });
    const pgid = await pid('A');
    // The daemon leads a group of its own: like the command's, it is killed after the test, however it ends.
    await pidIn(join(dir, 'daemon.pid'));
    // The daemon holds the runner's stdout and stderr open: the runner must end anyway.
    await r.exited;
    expect(r.child.exitCode).toBe(0);
    expect(groupAlive(pgid)).toBe(false);
    expect((await tasks(file))[0]).toMatchObject({ status: 'done', by: 'r1' });
  });

  it.each([
    ['a program not in PATH', () => 'no-such-program-here', 'command not found', 'not found in PATH'],
    ['a path to no file', () => './no/such/file', 'command not found', `no such file: ${join(process.cwd(), 'no', 'such', 'file')}`],
    ['a file that is not executable', (file: string) => file, 'command not executable', 'not an executable file'],
  ])('gives the task back and stops with exit 1 when the command cannot be started: %s', async (_, program, what, why) => {
    const { file } = runnerBoard('- [ ] one\n');
    const before = bytesOf(file);
    const end = await runner(file, ['--', program(file)]).done;
    expect(end.code).toBe(1);
    expect(end.stderr).toContain(`error[COMMAND]: ${what}: ${program(file)} (${why}); the task was given back\n`);
    expect(bytesOf(file)).toEqual(before);
  });
});

describe('mdclaim run --loop', () => {
  it('two runners, two commands each at a time, never run the same task', async () => {
    const n = 12;
    const { file, dir, env } = runnerBoard('# Batch\n\n' + Array.from({ length: n }, (_, i) => `- [ ] job ${i}`).join('\n') + '\n');
    const log = join(dir, 'log');
    const script = 'echo "start $MDCLAIM_TASK_ID $RUNNER" >> "$DIR/log"; sleep 0.1; echo "end $MDCLAIM_TASK_ID $RUNNER" >> "$DIR/log"';
    const args = (by: string) => ['--by', by, '--until-settled', '--concurrency', '2', '--interval', '100ms', '--', 'sh', '-c', script];
    const ends = await Promise.all([runner(file, args('r1'), { env: env('r1') }).done, runner(file, args('r2'), { env: env('r2') }).done]);
    expect(ends.map((e) => e.code)).toEqual([0, 0]);
    const lines = read(log).trim().split('\n').map((l) => l.split(' '));
    const started = lines.filter(([what]) => what === 'start');
    expect(started).toHaveLength(n);
    expect(new Set(started.map(([, id]) => id)).size).toBe(n);
    // Each task is done by the runner that ran it, and no runner ran more than two at once.
    const ranBy = new Map(started.map(([, id, who]) => [id, who]));
    for (const t of (await tasks(file))) expect(t).toMatchObject({ status: 'done', by: ranBy.get(t.id) });
    for (const who of ['r1', 'r2']) {
      let running = 0;
      for (const [what, , w] of lines) {
        if (w !== who) continue;
        running += what === 'start' ? 1 : -1;
        expect(running).toBeLessThanOrEqual(2);
      }
    }
  });

  it('prefixes each line of output with the task id when several run at once, and stops after --max', async () => {
    const { file } = runnerBoard('[] a\n[] b\n[] c\n');
    const end = await runner(file, ['--loop', '--max', '2', '--concurrency', '2', '--', 'sh', '-c', 'printf "one\\ntwo"; echo oops >&2']).done;
    expect(end.code).toBe(0);
    const [a, b, c] = await tasks(file);
    expect([a!.status, b!.status, c!.status]).toEqual(['done', 'done', 'open']);
    // The two commands run at once, so their lines may interleave; each command's own come whole and in order.
    for (const id of [a!.id, b!.id]) {
      expect(end.stdout.split('\n').filter((l) => l.startsWith(`[${id}] `))).toEqual([`[${id}] one`, `[${id}] two`]);
      expect(end.stderr.split('\n')).toContain(`[${id}] oops`);
    }
  });

  it('--until-settled ends when the only open task wants paths an untimed claim holds (that claim never lapses)', async () => {
    const { file, dir } = runnerBoard('## Agent\n[🟡, adw_1] refactor {writes: src/}\n## Next\n[] edit a source file {writes: src/a.ts}\n');
    const before = bytesOf(file);
    const events = join(dir, 'ev.jsonl');
    const end = await runner(file, ['--by', 'r1', '--until-settled', '--interval', '100ms', '--events', events, '--', 'true']).done;
    expect(end.code).toBe(0);
    expect(eventsIn(events).at(-1)).toMatchObject({ event: 'stop', stoppedBy: 'settled' });
    expect(bytesOf(file)).toEqual(before);
  });

  it('--until-settled ends on a board whose blocked tasks can no longer become claimable', async () => {
    const soon = new Date(Date.now()).toISOString().slice(0, 19) + 'Z';
    const board = [
      '## Broken',
      '[❌, x] the step that failed // Failed: exit 1',
      '[⏰] waits for the failed step',
      '## Chain',
      '[] step one',
      '[⏰] step two, after step one',
      '## ADW',
      '[🟡, adw_1] held by an agent, untimed',
      '[⏰] waits for the agent',
      '## Leased',
      `[🟡, other, ${soon}, 2s] someone else's claim, which lapses`,
      '',
    ].join('\n');
    const { file, dir } = runnerBoard(board);
    const events = join(dir, 'ev.jsonl');
    const end = await runner(file, ['--by', 'r1', '--until-settled', '--interval', '100ms', '--events', events, '--', 'true']).done;
    expect(end.code).toBe(0);
    const by = Object.fromEntries((await tasks(file)).map((t) => [t.text, `${t.status}${t.by ? ' ' + t.by : ''}`]));
    expect(by).toEqual({
      'the step that failed': 'failed x',
      'waits for the failed step': 'blocked',
      'step one': 'done r1',
      'step two, after step one': 'done r1',
      'held by an agent, untimed': 'claimed adw_1',
      'waits for the agent': 'blocked',
      "someone else's claim, which lapses": 'done r1',
    });
    expect(eventsIn(events).at(-1)).toMatchObject({ event: 'stop', stoppedBy: 'settled' });
    expect(existsSync(events) && readFileSync(events, 'utf8').endsWith('\n')).toBe(true);
  });
});
