import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTER_BOARD } from '../src/file/starter.js';
import { parseTasks } from '../src/parse.js';
import { CLI, mdclaim, mdclaimAsync } from './helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mdclaim-init-'));
  dirs.push(dir);
  return dir;
}

describe('the starter board', () => {
  it('shows what a board holds: two sections, open tasks, a [⏰], tags and a {writes: …}', () => {
    const tasks = parseTasks(STARTER_BOARD);
    expect(new Set(tasks.map((t) => t.section)).size).toBe(2);
    expect(tasks.filter((t) => t.status === 'open').length).toBeGreaterThanOrEqual(3);
    expect(tasks.filter((t) => t.status === 'blocked')).toHaveLength(1);
    expect(tasks.every((t) => t.tags.length > 0)).toBe(true);
    expect(tasks.some((t) => t.writes?.includes('README.md'))).toBe(true);
    // The comment that explains it is no task, though its lines name markers.
    expect(tasks).toHaveLength(5);
  });
});

describe('mdclaim init', () => {
  it('writes the starter board where none is, says what to run next, and the board is claimable', () => {
    const file = join(emptyDir(), 'tasks.md');
    const r = mdclaim(['init', '--file', file]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^created ${file}: 5 tasks in 2 sections`));
    for (const cmd of ['list', 'next', 'done', 'run', 'init']) expect(r.stdout).toMatch(new RegExp(`^  npx mdclaim ${cmd} .*--file ${file}`, 'm'));
    // The explanations start in one column, whatever the commands' lengths.
    const steps = r.stdout.split('\n').filter((l) => l.startsWith('  npx mdclaim '));
    expect(steps).toHaveLength(5);
    expect(new Set(steps.map((l) => l.indexOf('  # '))).size).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_BOARD);
    const claimed = mdclaim(['next', '--file', file, '--by', 'me', '--json']);
    expect(claimed.status).toBe(0);
    const task = (JSON.parse(claimed.stdout) as { task: { id: string; text: string } }).task;
    expect(task.text).toMatch(/^Claim this task/);
    expect(mdclaim(['done', task.id, '--file', file, '--by', 'me']).status).toBe(0);
  });

  it('with the default file, names no --file in its advice', () => {
    const dir = emptyDir();
    const r = spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^created \.\/tasks\.md: /);
    expect(r.stdout).not.toMatch(/--file/);
    expect(readFileSync(join(dir, 'tasks.md'), 'utf8')).toBe(STARTER_BOARD);
  });

  it('never writes over an existing file: exit 2, one line, the file byte-identical', () => {
    const file = join(emptyDir(), 'tasks.md');
    const mine = Buffer.from('# mine\n- [🟡, dana, 2026-11-30T04:06:29Z] Keep me\r\nno final newline');
    writeFileSync(file, mine);
    const r = mdclaim(['init', '--file', file]);
    expect(r).toMatchObject({ status: 2, stdout: '' });
    expect(r.stderr).toMatch(/^error\[USAGE\]: .*tasks\.md already exists; init never writes over it[^\n]*\n$/);
    expect(readFileSync(file).equals(mine)).toBe(true);
  });

  it('of many started at once on one path, exactly one creates the board and the others exit 2', async () => {
    const file = join(emptyDir(), 'tasks.md');
    const results = await Promise.all(Array.from({ length: 8 }, () => mdclaimAsync(['init', '--file', file, '--json'])));
    expect(results.map((r) => r.status).sort()).toEqual([0, 2, 2, 2, 2, 2, 2, 2]);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_BOARD);
    expect(JSON.parse(results.find((r) => r.status === 0)!.stdout)).toEqual({ created: file, tasks: 5, sections: 2, history: true });
  });

  it('leaves no half-written board when the write fails (a file size limit)', () => {
    const file = join(emptyDir(), 'tasks.md');
    const r = spawnSync('bash', ['-c', 'ulimit -f 0; exec "$0" "$@"', process.execPath, CLI, 'init', '--file', file], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[IO\]: .*tasks\.md: .*file size limit[^\n]*\n$/);
    expect(existsSync(file)).toBe(false);
  });

  it('says so in one line when the directory does not exist', () => {
    const file = join(emptyDir(), 'no', 'tasks.md');
    expect(mdclaim(['init', '--file', file])).toEqual({ status: 1, stdout: '', stderr: `error[IO]: ${file}: no such directory\n` });
  });

  it('refuses a PostgreSQL URL as a usage error, saying how such a board starts', () => {
    const r = mdclaim(['init', '--file', 'postgres://u@127.0.0.1:1/db?board=x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error\[USAGE\]: init needs a file board: on a PostgreSQL board, .*import/);
  });

  it('--agents writes nothing and prints the loop an AGENTS.md needs: next, heartbeat, done/fail, exit statuses, MCP', () => {
    const dir = emptyDir();
    const file = join(dir, 'board.md');
    const r = mdclaim(['init', '--agents', '--file', file]);
    expect(r.status).toBe(0);
    expect(existsSync(file)).toBe(false);
    for (const cmd of ['next', 'heartbeat ID', 'done ID', 'fail ID']) expect(r.stdout).toContain(`npx --no-install mdclaim ${cmd} --file ${file} --by NAME`);
    expect(r.stdout).toMatch(/Exit 3: nothing is claimable/);
    expect(r.stdout).toMatch(/4 conflict/);
    expect(r.stdout).toContain(`claude mcp add mdclaim -- npx --no-install mdclaim mcp --file ${file}`);
    const spaced = join(dir, 'my board.md');
    expect(mdclaim(['init', '--agents', '--file', spaced]).stdout).toContain(`mdclaim done ID --file '${spaced}' --by NAME`);
    const asJson = mdclaim(['init', '--agents', '--file', file, '--json']);
    expect(JSON.parse(asJson.stdout)).toEqual({ agents: r.stdout });
  });

  it('is in the global help and has its own', () => {
    expect(mdclaim(['--help']).stdout).toMatch(/^ {2}init +write a starter tasks\.md/m);
    const own = mdclaim(['init', '--help']);
    expect(own.stdout).toMatch(/^Usage: mdclaim init \[options\]\n/);
    expect(own.stdout).toMatch(/--agents/);
    expect(mdclaim(['init', '--by', 'x']).status).toBe(2);
  });
});
