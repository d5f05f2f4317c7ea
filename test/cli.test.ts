import { symlinkSync, statSync, chmodSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

// A claim made just now, so it is fresh under any lease the tests use.
const NOW = new Date().toISOString().slice(0, 19) + 'Z';
const BOARD = `# Sprint

## Git Worktree api
[] PLAT-1 Add login {backend}
[⏰] PLAT-2 Add logout {backend}

## Docs
- [🟡, codex, ${NOW}] Write the guide
- [ ] Proofread the guide {docs}
`;

const json = (out: string) => JSON.parse(out) as Record<string, any>;

describe('mdclaim CLI', () => {
  it('lists tasks as one JSON document with the documented fields', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['list', '--file', file, '--json']);
    expect(r.status).toBe(0);
    const { tasks } = json(r.stdout);
    expect(tasks).toHaveLength(4);
    expect(tasks[0]).toEqual({ id: 'PLAT-1', text: 'PLAT-1 Add login {backend}', line: 4, status: 'open', section: 'Git Worktree api', tags: ['backend'], claimable: true });
    expect(tasks[2]).toMatchObject({ status: 'claimed', by: 'codex', claimedAt: NOW, section: 'Docs', tags: [] });
  });

  it('next claims the first claimable task, says so, and the loop idiom terminates with 3', () => {
    const file = boardFile(BOARD);
    const first = mdclaim(['next', '--file', file, '--by', 'agent-7', '--lease', '2h']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^claimed PLAT-1 "Add login \{backend\}" by agent-7 \(lease expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$/);
    // PLAT-1's line was `[]`: its claim carries U+FE0F after the 🟡, for a give-back to write `[]` again.
    expect(read(file)).toMatch(/^\[🟡\uFE0F, agent-7, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, 2h\] PLAT-1 Add login \{backend\}$/m);
    const second = mdclaim(['next', '--file', file, '--by', 'agent-8', '-q']);
    expect(second).toMatchObject({ status: 0, stdout: `${json(mdclaim(['list', '--file', file, '--json']).stdout).tasks[3].id}\n` });
    const none = mdclaim(['next', '--file', file, '--by', 'agent-9', '--json']);
    expect(none.status).toBe(3);
    expect(json(none.stdout)).toEqual({ task: null });
  });

  it('generates an 8-hex claimant when next has no --by', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['next', '--file', file, '--json']);
    expect(json(r.stdout).task.by).toMatch(/^[0-9a-f]{8}$/);
  });

  it('reads the file and claimant from MDCLAIM_FILE and MDCLAIM_BY', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['claim', 'PLAT-1', '--json'], { MDCLAIM_FILE: file, MDCLAIM_BY: 'env-agent' });
    expect(json(r.stdout).task).toMatchObject({ id: 'PLAT-1', by: 'env-agent' });
  });

  it('exits 4 with one line naming the holder when a task is taken, also as JSON', () => {
    const file = boardFile(BOARD);
    const id = json(mdclaim(['list', '--file', file, '--json']).stdout).tasks[2].id;
    const r = mdclaim(['claim', id, '--file', file, '--by', 'me', '--json']);
    expect(r.status).toBe(4);
    expect(r.stderr).toBe(`error[CONFLICT]: ${id} "Write the guide" already claimed by codex since ${NOW}\n`);
    expect(json(r.stdout)).toEqual({ error: { code: 'CONFLICT', message: `${id} "Write the guide" already claimed by codex since ${NOW}`, holder: 'codex' } });
  });

  it('guards heartbeat, done, fail and release: only the holder, exit 4 otherwise', () => {
    const file = boardFile(BOARD);
    mdclaim(['claim', 'PLAT-1', '--file', file, '--by', 'owner']);
    const before = bytesOf(file);
    for (const cmd of ['heartbeat', 'done', 'fail', 'release']) {
      const r = mdclaim([cmd, 'PLAT-1', '--file', file, '--by', 'other']);
      expect(r.status, cmd).toBe(4);
      expect(r.stderr).toBe('error[CONFLICT]: PLAT-1 "Add login {backend}" is claimed by owner, not other\n');
    }
    // A task nobody holds is a conflict too, and so is one already done.
    const open = json(mdclaim(['list', '--file', file, '--json']).stdout).tasks[3].id;
    expect(mdclaim(['release', open, '--file', file, '--by', 'owner']).status).toBe(4);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(mdclaim(['heartbeat', 'PLAT-1', '--file', file, '--by', 'owner']).stdout).toMatch(/^renewed PLAT-1 "Add login \{backend\}" by owner \(lease expires /);
    expect(mdclaim(['done', 'PLAT-1', '--file', file, '--by', 'owner', '--commit', 'abc1234']).stdout).toBe('done PLAT-1 "Add login {backend}" by owner at abc1234\n');
    expect(mdclaim(['done', 'PLAT-1', '--file', file, '--by', 'owner']).status).toBe(4);
    expect(read(file)).toContain('[✅ abc1234, owner] PLAT-1 Add login {backend}\n');
  });

  it('fail keeps the reason on the task line; release restores the line', () => {
    const file = boardFile(BOARD);
    mdclaim(['claim', 'PLAT-1', '--file', file, '--by', 'w']);
    expect(mdclaim(['fail', 'PLAT-1', '--file', file, '--by', 'w', '--reason', 'CI red\non main']).stdout).toBe('failed PLAT-1 "Add login {backend}" by w: CI red on main\n');
    expect(read(file)).toContain('[❌, w] PLAT-1 Add login {backend} // Failed: CI red on main\n');
    const file2 = boardFile(BOARD);
    mdclaim(['claim', 'PLAT-1', '--file', file2, '--by', 'w']);
    expect(mdclaim(['release', 'PLAT-1', '--file', file2, '--by', 'w']).stdout).toBe('released PLAT-1 "Add login {backend}" by w\n');
    expect(read(file2)).toBe(BOARD);
  });

  it('exits 3 for a task id that matches nothing', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['claim', 'NOPE-9', '--file', file, '--by', 'w']);
    expect(r).toMatchObject({ status: 3, stderr: 'error[NOT_FOUND]: no task with id NOPE-9\n' });
  });

  it('reaps claims older than the TTL, quietly when there are none, and dry-runs', () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['reap', '--file', file, '--ttl', '36500d'])).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const dry = mdclaim(['reap', '--file', file, '--ttl', '0s', '--dry-run', '--json']);
    expect(json(dry.stdout).reaped.map((t: { by: string }) => t.by)).toEqual(['codex']);
    expect(read(file)).toBe(BOARD);
    const r = mdclaim(['reap', '--file', file, '--ttl', '0s']);
    expect(r.stdout).toBe(`reopened ${json(dry.stdout).reaped[0].id} "Write the guide" (claimed by codex since ${NOW})\n`);
    expect(read(file)).toBe(BOARD.replace(`[🟡, codex, ${NOW}]`, '[ ]'));
  });

  it('adds a task under the lock and prints its id', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['add', 'Index', 'the', 'guide', '--section', 'Docs', '--file', file, '--json']);
    expect(json(r.stdout).task).toMatchObject({ text: 'Index the guide', status: 'open', section: 'Docs', line: 10 });
    expect(read(file).endsWith('- [ ] Proofread the guide {docs}\n- [ ] Index the guide\n')).toBe(true);
  });

  it('prints a hand-typed non-ASCII claimant as typed, in list and in --json', () => {
    const file = boardFile(`- [🟡, José, ${NOW}] one\n`);
    expect(mdclaim(['list', '--file', file]).stdout).toMatch(/^\S+  claimed by José, (?:\S+ left|lapsed)\s+one\n$/);
    expect(json(mdclaim(['list', '--file', file, '--json']).stdout).tasks[0].by).toBe('José');
  });

  it('lists a section named as add names it: closing #s dropped, as the heading reads back', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['list', '--file', file, '--section', 'Docs ##', '--json']);
    expect(json(r.stdout).tasks.map((t: { text: string }) => t.text)).toEqual(['Write the guide', 'Proofread the guide {docs}']);
  });

  describe('bad input: a one-line error, the right exit status, the file byte-identical', () => {
    const cases: [string, string[], number, RegExp][] = [
      ['an unknown command', ['frobnicate'], 2, /^error\[USAGE\]: unknown command "frobnicate"/],
      ['an unknown flag', ['next', '--by', 'w', '--fast'], 2, /^error\[USAGE\]: unknown option --fast/],
      ['a flag the command does not take', ['next', '--by', 'w', '--commit', 'x'], 2, /does not take --commit/],
      ['a malformed --by', ['next', '--by', 'no spaces allowed'], 2, /by must be 1–64/],
      ['a too-long --by', ['next', '--by', 'x'.repeat(65)], 2, /by must be 1–64/],
      ['a bad duration', ['next', '--by', 'w', '--lease', 'forever'], 2, /not a duration/],
      ['a bad ttl', ['reap', '--ttl', '-5m'], 2, /not a duration/],
      ['a missing --by on done', ['done', 'PLAT-1'], 2, /needs --by/],
      ['a missing task id', ['claim', '--by', 'w'], 2, /needs exactly one task id/],
      ['a bad --write', ['list', '--write', 'sometimes'], 2, /--write must be/],
      ['a bad commit', ['done', 'PLAT-1', '--by', 'w', '--commit', 'a b'], 2, /commit/],
      ['a flag without its value', ['next', '--by'], 2, /--by needs a value/],
      ['multi-line task text', ['add', 'one\ntwo'], 2, /one line/],
    ];
    it.each(cases)('%s', (_name, args, status, message) => {
      const file = boardFile(BOARD);
      const r = mdclaim([...args, '--file', file]);
      expect(r.status).toBe(status);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
      expect(read(file)).toBe(BOARD);
    });

    it('a missing file is a runtime failure (1)', () => {
      const r = mdclaim(['list', '--file', '/nonexistent/tasks.md']);
      expect(r).toMatchObject({ status: 1, stderr: 'error[IO]: /nonexistent/tasks.md: no such file (mdclaim init creates one; or pass --file)\n' });
    });

    it('a directory is a runtime failure (1), not a crash', () => {
      const dir = dirname(boardFile(BOARD));
      for (const cmd of [['list'], ['next', '--by', 'w']]) {
        expect(mdclaim([...cmd, '--file', dir])).toMatchObject({ status: 1, stderr: `error[IO]: ${dir}: not a regular file\n` });
      }
    });

    it('a usage error with --json is also one JSON document on stdout', () => {
      const r = mdclaim(['next', '--by', 'bad by', '--json', '--file', boardFile(BOARD)]);
      expect(r.status).toBe(2);
      expect(json(r.stdout).error.code).toBe('USAGE');
    });
  });

  it('keeps a symlinked board a symlink and the target keeps its mode', () => {
    const target = boardFile(BOARD);
    chmodSync(target, 0o640);
    const link = join(dirname(target), 'link.md');
    symlinkSync(target, link);
    mdclaim(['claim', 'PLAT-1', '--file', link, '--by', 'w', '--write', 'replace']);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readFileSync(target, 'utf8')).toContain('[🟡\uFE0F, w, ');
  });

  it('prints help that lists every command and the exit statuses, and a version', () => {
    const r = mdclaim(['--help']);
    expect(r.status).toBe(0);
    for (const cmd of ['list', 'next', 'claim', 'heartbeat', 'done', 'fail', 'release', 'reap', 'add', 'edit']) expect(r.stdout).toContain(`  ${cmd}`);
    expect(r.stdout).toContain('4  conflict');
    expect(mdclaim(['next', '--help']).stdout).toContain('--lease');
    expect(mdclaim(['--version']).stdout).toMatch(/^\d+\.\d+\.\d+ \(lock: .+\)\n$/);
  });
});
