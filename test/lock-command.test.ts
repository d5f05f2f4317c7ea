import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { CLI, mdclaim, mdclaimAsync } from './helpers/cli.js';
import { fixture, lines, start, track } from './helpers/procs.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '- [ ] one\n- [ ] two\n';

/** `mdclaim lock … -- sh -c script` as a running process; `ready` resolves on its first line of output. */
function lockRunning(file: string, script: string, flags: string[] = []) {
  const child = track(spawn(process.execPath, [CLI, 'lock', '--file', file, ...flags, '--', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    done.then((r) => reject(new Error(`exited before holding: ${r.stderr}`)));
  });
  return { child, ready, done };
}

/** A script that prints `in`, then waits for `file` to exist. */
const waitFor = (file: string) => `echo in; while [ ! -e '${file}' ]; do sleep 0.02; done`;

describe('mdclaim lock -- <command>', () => {
  it("passes on the command's exit status and stdio", () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['lock', '--file', file, '--', 'sh', '-c', 'exit 7']).status).toBe(7);
    const r = mdclaim(['lock', '--file', file, '--', 'sh', '-c', 'cat "$0"; echo oops >&2', file]);
    expect(r).toEqual({ status: 0, stdout: BOARD, stderr: 'oops\n' });
  });

  it('exits 128+n when signal n kills the command', () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['lock', '--file', file, '--', 'sh', '-c', 'kill -KILL $$']).status).toBe(137);
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('passes %s on to the command', async (signal) => {
    const file = boardFile(BOARD);
    const l = lockRunning(file, `trap 'echo caught; exit 9' ${signal.slice(3)}; echo in; while :; do sleep 0.02; done`);
    await l.ready;
    l.child.kill(signal);
    const r = await l.done;
    expect(r.stdout).toBe('in\ncaught\n');
    expect(r.status).toBe(9);
  });

  it('refuses a missing command as a usage error', () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['lock', '--file', file]).stderr).toMatch(/^error\[USAGE\]: lock needs a command to run: mdclaim lock \[options\] -- <command>/);
    const r = mdclaim(['lock', '--file', file, '--', 'no-such-command-here']);
    expect(r).toMatchObject({ status: 2, stderr: 'error[USAGE]: cannot run "no-such-command-here": no such command\n' });
  });

  it('refuses an empty command name as a usage error, before taking the lock', () => {
    const file = boardFile(BOARD);
    for (const command of ['lock', 'run']) {
      const r = mdclaim([command, '--file', file, '--', '', 'arg'], { MDCLAIM_BY: 'x' });
      expect(r).toMatchObject({ status: 2, stderr: `error[USAGE]: ${command}: the command's name is empty: mdclaim ${command} [options] -- <command> [args…]\n` });
    }
    expect(read(file)).toBe(BOARD);
  });

  it('keeps every mdclaim operation out while the command runs, even after the command replaced the file', async () => {
    const file = boardFile(BOARD);
    const go = join(dirname(file), 'go');
    const l = lockRunning(file, `sed -i 's/one/uno/' '${file}'; ${waitFor(go)}`);
    await l.ready;
    for (const args of [['next', '--by', 'w'], ['list']]) {
      const r = mdclaim([...args, '--file', file, '--lock-timeout', '300ms']);
      expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]/);
      expect(r.status).toBe(1);
    }
    const waiting = mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '30s']);
    writeFileSync(go, '');
    expect((await l.done).status).toBe(0);
    expect((await waiting).status).toBe(0);
    expect(read(file)).toMatch(/^- \[🟡, w, \S+\] uno\n- \[ \] two\n$/);
  });

  it('keeps --lock-timeout one deadline however often the holder replaces the file', async () => {
    const file = boardFile(BOARD);
    const go = join(dirname(file), 'go');
    const held = lockRunning(file, `echo in; while [ ! -e '${go}' ]; do sed -i 's/one/one/' '${file}'; sleep 0.01; done`);
    await held.ready;
    const r = await mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms']);
    // It gave up while the holder was still at it, not when the holder stopped.
    expect(existsSync(go)).toBe(false);
    expect(held.child.exitCode).toBeNull();
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .* after 300 ms\n$/);
    writeFileSync(go, '');
    expect((await held.done).status).toBe(0);
  });

  it('times out with exit 1 and LOCK_TIMEOUT without running the command', async () => {
    const file = boardFile(BOARD);
    const go = join(dirname(file), 'go');
    const marker = join(dirname(file), 'ran');
    const held = lockRunning(file, waitFor(go));
    await held.ready;
    const r = mdclaim(['lock', '--file', file, '--lock-timeout', '300ms', '--', 'touch', marker]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]: .* after 300 ms\n$/);
    expect(existsSync(marker)).toBe(false);
    writeFileSync(go, '');
    await held.done;
  });

  it('--shared lets two readers hold the board at once and keeps a claimer waiting', async () => {
    const file = boardFile(BOARD);
    const go = join(dirname(file), 'go');
    const a = lockRunning(file, waitFor(go), ['--shared']);
    await a.ready;
    // B gets in while A holds (with a short timeout, so that it fails rather than waits if it could not).
    const b = lockRunning(file, waitFor(go), ['--shared', '--lock-timeout', '5s']);
    await b.ready;
    const r = mdclaim(['next', '--file', file, '--by', 'w', '--lock-timeout', '300ms']);
    expect(r.stderr).toMatch(/^error\[LOCK_TIMEOUT\]/);
    expect(mdclaim(['list', '--file', file, '--lock-timeout', '300ms']).status).toBe(0);
    const waiting = mdclaimAsync(['next', '--file', file, '--by', 'w', '--lock-timeout', '30s']);
    writeFileSync(go, '');
    expect([(await a.done).status, (await b.done).status]).toEqual([0, 0]);
    expect((await waiting).status).toBe(0);
    expect(bytesOf(file).toString()).toMatch(/^- \[🟡, w, /);
  });
});

describe('editors run through mdclaim lock, racing claimers', () => {
  const TASKS = 90;
  const ORIGINAL = ['# Board', '', 'counter: 0', '', ...Array.from({ length: TASKS }, (_, i) => `- [ ] task ${i}`), ''];
  const LINE = /^- \[(?: |🟡, c\d, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, 10000d|✅, c\d)\] (task \d+)$/;

  /** A snapshot is whole: every line as it was, but a task's marker (valid) and the counter (a number). */
  function assertWhole(text: string): number {
    const got = text.split('\n');
    expect(got).toHaveLength(ORIGINAL.length);
    let counter = -1;
    got.forEach((line, i) => {
      if (line === ORIGINAL[i]) return;
      const c = /^counter: (\d+)$/.exec(line);
      if (c && i === 2) return void (counter = Number(c[1]));
      const m = LINE.exec(line);
      expect(m, `line ${i + 1} torn: ${JSON.stringify(line)}`).not.toBeNull();
      expect(`- [ ] ${m![1]}`).toBe(ORIGINAL[i]);
    });
    return counter === -1 ? 0 : counter;
  }

  it('loses no edit and no claim, claims nothing twice, and the board is never torn', async () => {
    const file = boardFile(ORIGINAL.join('\n'));
    const dir = dirname(file);
    const stop = join(dir, 'stop');
    const bump = `n=$(sed -n 's/^counter: //p' '${file}'); n=$((n+1))`;
    // One rewrites the file in place (same inode), one with sed -i (a new file renamed over).
    const edits = {
      inPlace: `${bump}; sed "s/^counter: .*/counter: $n/" '${file}' > '${dir}/scratch' && cat '${dir}/scratch' > '${file}'`,
      sedI: `${bump}; sed -i "s/^counter: .*/counter: $n/" '${file}'`,
    };
    const editors = Object.values(edits).map((edit) =>
      // A loop until `stop` exists: should the test end first, its whole group goes with it.
      track(
        spawn('sh', ['-c', `while [ ! -e '${stop}' ]; do "$0" '${CLI}' lock --file '${file}' -- sh -c "$1" && echo edited; done`, process.execPath, edit], {
          stdio: ['ignore', 'pipe', 'inherit'],
          detached: true,
        }),
        { group: true },
      ),
    );
    const edited = editors.map((e) => {
      let n = 0;
      e.stdout.on('data', (d) => (n += String(d).split('\n').filter((l) => l === 'edited').length));
      return { count: () => n, done: new Promise((r) => e.on('close', r)) };
    });
    // Claimers start once each editor is at work, so that they overlap throughout.
    while (edited.some((e) => e.count() === 0)) await new Promise((r) => setTimeout(r, 10));
    const claimers = [0, 1, 2].map((i) => start(fixture('claim-loop.mjs'), [file, `c${i}`]));
    let finished = false;
    const all = Promise.all(claimers.map((c) => c.done)).then((r) => ((finished = true), r));
    // Read under the shared lock throughout: every snapshot whole, the counter never going back.
    let snapshots = 0;
    let last = 0;
    while (!finished) {
      const r = await mdclaimAsync(['lock', '--shared', '--file', file, '--', 'cat', file]);
      expect(r.status).toBe(0);
      const counter = assertWhole(r.stdout);
      expect(counter).toBeGreaterThanOrEqual(last);
      last = counter;
      snapshots++;
    }
    const exits = await all;
    writeFileSync(stop, '');
    await Promise.all(edited.map((e) => e.done));

    for (const e of exits) expect(e.stderr).toBe('');
    expect(exits.flatMap((e) => lines(e.stdout, 'lost'))).toEqual([]);
    const done = exits.flatMap((e) => lines(e.stdout, 'done'));
    expect(new Set(done).size).toBe(TASKS);
    expect(done).toHaveLength(TASKS);
    const final = read(file);
    expect(assertWhole(final)).toBe(edited[0]!.count() + edited[1]!.count());
    expect(parseTasks(final).every((t) => t.status === 'done')).toBe(true);
    expect(snapshots).toBeGreaterThan(0);
  });
});
