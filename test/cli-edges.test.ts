import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, mdclaim } from './helpers/cli.js';
import { asNobody, nobodyCannot } from './helpers/nobody.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const STALE = '2026-01-01T00:00:00Z';
const BOARD = `# Board

## status
- [ ] Check the status page {json}
- [🟡, gone, ${STALE}] Rotate the keys {ops}

## Later
- [ ] Write the release notes {docs}
`;

const json = (out: string) => JSON.parse(out) as Record<string, any>;
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Run the CLI with a deadline, so a hang fails the test instead of stalling
 * it: generous, since at a load average of 20 a CLI's start alone takes seconds.
 */
function bounded(args: string[], timeout = 60_000) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout, maxBuffer: 256 << 20 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe('option values', () => {
  it('takes a value that is spelled like a flag name as the value', () => {
    const file = boardFile(BOARD);
    expect(json(mdclaim(['list', '--tag', 'json', '--file', file, '--json']).stdout).tasks.map((t: { text: string }) => t.text)).toEqual([
      'Check the status page {json}',
    ]);
    expect(json(mdclaim(['list', '--section', 'status', '--file', file, '--json']).stdout).tasks).toHaveLength(2);
    const r = mdclaim(['next', '--by', 'file', '--file', file, '--json']);
    expect(r.status).toBe(0);
    expect(json(r.stdout).task).toMatchObject({ text: 'Check the status page {json}', by: 'file' });
    expect(read(file)).toMatch(/^- \[🟡, file, \S+\] Check the status page \{json\}$/m);
  });

  it('still refuses a value flag followed by one of the flags, and leaves the board alone', () => {
    const file = boardFile(BOARD);
    for (const flag of ['--json', '-q', '--file', '--']) {
      const r = mdclaim(['next', '--by', flag, '--file', file]);
      expect(r.status, flag).toBe(2);
      expect(r.stderr, flag).toBe('error[USAGE]: --by needs a value\n');
    }
    const j = mdclaim(['next', '--by', '--json', '--file', file]);
    expect(json(j.stdout)).toEqual({ error: { code: 'USAGE', message: '--by needs a value' } });
    expect(read(file)).toBe(BOARD);
  });

  it('knows only its own flags and commands, not the names every object has', () => {
    expect(mdclaim(['constructor'])).toMatchObject({ status: 2, stderr: 'error[USAGE]: unknown command "constructor" (see mdclaim --help)\n' });
    expect(mdclaim(['list', '--toString'])).toMatchObject({ status: 2, stderr: 'error[USAGE]: unknown option --toString (see mdclaim --help)\n' });
  });
});

describe('next -q and claim -q', () => {
  it('refuse to make up a claimant that would never be shown, before writing anything', () => {
    const file = boardFile(BOARD);
    for (const args of [['next', '-q'], ['claim', json(mdclaim(['list', '--file', file, '--json']).stdout).tasks[0].id, '--quiet']]) {
      const r = mdclaim([...args, '--file', file]);
      expect(r.status, args[0]).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error\\[USAGE\\]: ${args[0]} -q needs --by \\(or MDCLAIM_BY\\)`));
      expect(r.stdout).toBe('');
    }
    expect(read(file)).toBe(BOARD);
    // With a claimant, -q prints the id, and that claimant can finish the task.
    const id = mdclaim(['next', '-q', '--file', file], { MDCLAIM_BY: 'w' }).stdout.trim();
    expect(mdclaim(['done', id, '--by', 'w', '--file', file]).status).toBe(0);
  });
});

describe('output and exit statuses', () => {
  it('exits quietly with 141 when its reader leaves early (mdclaim list | head -1)', () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `- [ ] task number ${i}\n`).join('');
    const file = boardFile(lines);
    const script = '"$0" "$1" list --file "$2" | head -1; echo "status ${PIPESTATUS[0]}" >&2';
    const r = spawnSync('bash', ['-c', script, process.execPath, CLI, file], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout).toMatch(/^\S+ {2}open +task number 0\n$/);
    expect(r.stderr).toBe('status 141\n');
  });

  it('writes all of a long list, in order, to a slow reader whose pipe does not block', () => {
    // A descriptor with O_NONBLOCK set (by whoever made the pipe) answers EAGAIN once the pipe is full: the
    // rest goes through Node's stream, which waits for the reader. perl makes such a pipe and reads it late.
    const file = boardFile(Array.from({ length: 50_000 }, (_, i) => `- [ ] task number ${i}\n`).join(''));
    const perl = [
      'use Fcntl; pipe(my $r, my $w) or die; my $f = fcntl($w, F_GETFL, 0); fcntl($w, F_SETFL, $f | O_NONBLOCK) or die;',
      'my $pid = fork(); if ($pid == 0) { close $r; open(STDOUT, ">&", $w) or die; exec(@ARGV) or die }',
      'close $w; select(undef, undef, undef, 0.5); local $/; my $all = <$r>; waitpid($pid, 0); print $all; print STDERR "status ", $? >> 8, "\n";',
    ].join(' ');
    const r = spawnSync('perl', ['-e', perl, process.execPath, CLI, 'list', '--file', file], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return void console.warn('skipped: no perl to make a non-blocking pipe');
    expect(r.stderr).toBe('status 0\n');
    const out = r.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(50_000);
    out.forEach((line, i) => expect(line.endsWith(` task number ${i}`)).toBe(true));
  });

  it('lists a 700,000-task board', () => {
    const file = boardFile(Array.from({ length: 700_000 }, (_, i) => `- [ ] t${i}\n`).join(''));
    const r = bounded(['list', '--file', file], 240_000);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(700_000);
    expect(out[699_999]).toMatch(/ open +t699999$/);
  });

  it('refuses a FIFO as the board at once, without opening it', () => {
    const file = boardFile(BOARD);
    const fifo = join(dirname(file), 'fifo.md');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const args of [['list'], ['next', '--by', 'w'], ['reap', '--dry-run']]) {
      const r = bounded([...args, '--file', fifo]);
      expect(r.signal, `${args[0]} hung`).toBeNull();
      expect(r).toMatchObject({ status: 1, stderr: `error[IO]: ${fifo}: not a regular file\n`, stdout: '' });
    }
  });

  it('prints --version and --help as one JSON document with --json', () => {
    expect(mdclaim(['--version'])).toMatchObject({ status: 0, stdout: `${VERSION} (lock: flock(2) through fs-ext)\n` });
    expect(mdclaim(['--version', '--json'])).toMatchObject({ status: 0, stdout: `${JSON.stringify({ version: VERSION, lock: 'flock(2) through fs-ext' })}\n` });
    const help = mdclaim(['--help', '--json']);
    expect(help.status).toBe(0);
    expect(json(help.stdout).help).toBe(mdclaim(['--help']).stdout.trimEnd());
    expect(json(mdclaim(['next', '--help', '--json']).stdout).help).toContain('--lease');
    expect(json(mdclaim(['help', 'reap', '--json']).stdout).help).toContain('--dry-run');
  });

  it('list with no match exits 0 with nothing printed, or {"tasks": []}; an unknown id exits 3; --help says both', () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['list', '--status', 'done', '--file', file])).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(mdclaim(['list', '--tag', 'nothing', '--file', file, '--json'])).toMatchObject({ status: 0, stdout: '{"tasks":[]}\n' });
    expect(mdclaim(['done', 'NOPE-1', '--by', 'w', '--file', file])).toMatchObject({ status: 3, stderr: 'error[NOT_FOUND]: no task with id NOPE-1\n' });
    const help = mdclaim(['--help']).stdout;
    expect(help).toContain('0  ok (list with no match too');
    expect(help).toContain('3  nothing to do: no task with that id (NOT_FOUND)');
  });
});

describe('reap --dry-run', () => {
  if (nobodyCannot) console.warn(`reap --dry-run permission test skipped: it runs the CLI as nobody: ${nobodyCannot}`);

  it.skipIf(nobodyCannot !== '')('needs only read permission on the board', () => {
    const file = boardFile(BOARD);
    chmodSync(dirname(file), 0o755);
    chmodSync(file, 0o644);
    const before = bytesOf(file);
    const dry = asNobody(['reap', '--dry-run', '--json', '--file', file]);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(json(dry.stdout).reaped.map((t: { by: string }) => t.by)).toEqual(['gone']);
    // The real reap needs write permission, and says so.
    expect(asNobody(['reap', '--file', file])).toMatchObject({ status: 1, stderr: `error[IO]: ${file}: permission denied\n` });
    expect(bytesOf(file).equals(before)).toBe(true);
  });

});

describe('control characters in messages', () => {
  // ESC, DEL and the C1 controls NEL and CSI: a terminal acts on each of them.
  const CONTROLS = ['\u001b', '\u007f', '\u0085', '\u009b'];

  it('never prints a control character from an argument raw: escaped on stderr and in --json, the board unchanged', () => {
    const file = boardFile(BOARD);
    const id = CONTROLS.map((c) => `${c}[31m`).join('');
    const shown = CONTROLS.map((c) => `\\u00${c.charCodeAt(0).toString(16)}[31m`).join('');
    const r = mdclaim(['claim', id, '--by', 'a', '--file', file, '--json']);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe(`error[NOT_FOUND]: no task with id ${shown}, nor one whose id starts with it\n`);
    expect(r.stdout).toBe(`{"error":{"code":"NOT_FOUND","message":"no task with id ${shown}, nor one whose id starts with it"}}\n`);
    expect(json(r.stdout).error.message).toBe(`no task with id ${id}, nor one whose id starts with it`);
    expect(read(file)).toBe(BOARD);
  });

  it('refuses a path holding a C1 control, naming it escaped', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['add', 'T {writes: a\u0085b}', '--file', file]);
    expect(r).toEqual({ status: 2, stdout: '', stderr: 'error[USAGE]: the task declares path "a\\u0085b" holds a control character, which a path here may not\n' });
    expect(read(file)).toBe(BOARD);
  });
});
