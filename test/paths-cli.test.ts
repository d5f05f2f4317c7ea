import { named } from '../src/format/named.js';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const BOARD = '# Work\n\n- [ ] Login {writes: src/auth/login.ts}\n- [ ] Session {writes: src/auth/}\n- [ ] Docs {reads: docs/}\n- [ ] Free\n';
const taskOf = (file: string, text: string) => parseTasks(read(file)).find((t) => t.text.startsWith(text))!;
const idOf = (file: string, text: string) => taskOf(file, text).id;
/** How messages name it: its id and its text. */
const nameOf = (file: string, text: string) => named(taskOf(file, text));

describe('the paths CLI', () => {
  it('claim of a path-blocked task exits 4 with one line naming holder, path and task; next skips it', () => {
    const file = boardFile(BOARD);
    const f = ['--file', file];
    expect(mdclaim(['claim', idOf(file, 'Login'), ...f, '--by', 'dana']).status).toBe(0);
    const before = bytesOf(file);
    const r = mdclaim(['claim', idOf(file, 'Session'), ...f, '--by', 'eve', '--json']);
    expect(r.status).toBe(4);
    expect(r.stderr).toBe(`error[CONFLICT]: dana holds src/auth/login.ts (write) on ${nameOf(file, 'Login')}\n`);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'CONFLICT', message: `dana holds src/auth/login.ts (write) on ${nameOf(file, 'Login')}`, holder: 'dana' } });
    expect(bytesOf(file).equals(before)).toBe(true);
    const next = mdclaim(['next', ...f, '--by', 'eve', '-q']);
    expect([next.status, next.stdout]).toEqual([0, `${idOf(file, 'Docs')}\n`]);
  });

  it('locks, lists, checks and unlocks paths; the locks are in the file while held and gone after done', () => {
    const file = boardFile(BOARD);
    const f = ['--file', file];
    const free = idOf(file, 'Free');
    mdclaim(['claim', free, ...f, '--by', 'dana']);
    const lock = mdclaim(['paths', 'lock', free, ...f, '--by', 'dana', '--writes', 'lib/a.ts,lib/b.ts', '--reads', './docs//api.md']);
    expect([lock.status, lock.stdout]).toEqual([0, `${nameOf(file, 'Free')} by dana locks lib/a.ts (write), lib/b.ts (write), docs/api.md (read)\n`]);
    expect(read(file)).toMatch(/- \[🟡, dana, [^\]]+\] Free\n {2}- 🔒 write lib\/a\.ts since \S+\n {2}- 🔒 write lib\/b\.ts since \S+\n {2}- 🔒 read docs\/api\.md since \S+\n$/);

    const list = mdclaim(['paths', ...f, '--json']);
    expect(list.status).toBe(0);
    const { paths } = JSON.parse(list.stdout) as { paths: Array<Record<string, string>> };
    expect(paths.map((p) => [p.path, p.mode, p.task, p.by, p.kind])).toEqual([
      ['lib/a.ts', 'write', free, 'dana', 'locked'],
      ['lib/b.ts', 'write', free, 'dana', 'locked'],
      ['docs/api.md', 'read', free, 'dana', 'locked'],
    ]);
    expect(paths.every((p) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(p.since!))).toBe(true);

    const theirs = mdclaim(['paths', 'check', ...f, '--by', 'eve', '--writes', 'lib/']);
    expect([theirs.status, theirs.stderr]).toEqual([4, `error[CONFLICT]: dana holds lib/a.ts (write) on ${nameOf(file, 'Free')}\n`]);
    expect(mdclaim(['paths', 'check', ...f, '--by', 'eve', '--reads', 'docs/']).status).toBe(0);
    expect(mdclaim(['paths', 'check', ...f, '--by', 'dana', '--writes', 'lib/']).stdout).toBe(`yours: lib/a.ts (write) on ${free}, lib/b.ts (write) on ${free}\n`);
    // Docs reads docs/, and dana only reads docs/api.md: readers share.
    expect(mdclaim(['claim', idOf(file, 'Docs'), ...f, '--by', 'eve']).status).toBe(0);

    const unlock = mdclaim(['paths', 'unlock', free, 'lib/b.ts', ...f, '--by', 'dana']);
    expect([unlock.status, unlock.stdout]).toEqual([0, `${nameOf(file, 'Free')} by dana locks lib/a.ts (write), docs/api.md (read)\n`]);
    const again = mdclaim(['paths', 'unlock', free, 'lib/b.ts', ...f, '--by', 'dana']);
    expect([again.status, again.stderr]).toEqual([3, `error[NOT_FOUND]: ${nameOf(file, 'Free')} has no lock on lib/b.ts\n`]);
    expect(mdclaim(['done', free, ...f, '--by', 'dana']).status).toBe(0);
    expect(read(file)).not.toContain('🔒');
    expect(JSON.parse(mdclaim(['paths', ...f, '--json']).stdout)).toEqual({ paths: [{ path: 'docs/', mode: 'read', task: idOf(file, 'Docs'), by: 'eve', since: expect.any(String), kind: 'declared' }] });
  });

  it('refuses a bad path, a lock by another and a missing --by, each in one line, the board untouched', () => {
    const file = boardFile(BOARD);
    const f = ['--file', file];
    const free = idOf(file, 'Free');
    mdclaim(['claim', free, ...f, '--by', 'dana']);
    const before = bytesOf(file);
    const cases: Array<[string[], number, RegExp]> = [
      [['paths', 'lock', free, '--by', 'dana', '--writes', '../up.ts'], 2, /^error\[USAGE\]: writes: path "\.\.\/up\.ts" leaves the board's directory\n$/],
      [['paths', 'lock', free, '--by', 'dana', '--writes', '/etc/x'], 2, /^error\[USAGE\]: .*absolute.*\n$/],
      [['paths', 'lock', free, '--by', 'dana'], 2, /^error\[USAGE\]: lockPaths: name at least one path to write or read\n$/],
      [['paths', 'lock', free, '--writes', 'a.ts'], 2, /^error\[USAGE\]: paths lock needs --by/],
      [['paths', 'lock', free, '--by', 'eve', '--writes', 'a.ts'], 4, /^error\[CONFLICT\]: .* is claimed by dana, not eve\n$/],
      [['paths', 'unlock', '--by', 'dana'], 2, /^error\[USAGE\]: paths unlock needs the task id\n$/],
      [['paths', 'bogus'], 2, /^error\[USAGE\]: paths takes no argument, got "bogus"\n$/],
    ];
    for (const [args, status, stderr] of cases) {
      const r = mdclaim([...args, ...f]);
      expect([args.join(' '), r.status]).toEqual([args.join(' '), status]);
      expect(r.stderr).toMatch(stderr);
    }
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('checks without --by as a read-only question: every hold is another\'s, a free path is free', () => {
    const file = boardFile(BOARD);
    const f = ['--file', file];
    expect(mdclaim(['claim', idOf(file, 'Login'), ...f, '--by', 'dana']).status).toBe(0);
    const before = bytesOf(file);
    expect(mdclaim(['paths', 'check', ...f, '--writes', 'src/other.ts'])).toEqual({ status: 0, stdout: 'free: no live claim holds these paths\n', stderr: '' });
    const held = mdclaim(['paths', 'check', ...f, '--writes', 'src/auth/login.ts']);
    expect([held.status, held.stderr]).toEqual([4, `error[CONFLICT]: dana holds src/auth/login.ts (write) on ${nameOf(file, 'Login')}\n`]);
    // MDCLAIM_BY still names the asker.
    expect(mdclaim(['paths', 'check', ...f, '--writes', 'src/auth/login.ts'], { MDCLAIM_BY: 'dana' }).status).toBe(0);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('lists the paths commands in --help', () => {
    const help = mdclaim(['--help']).stdout;
    for (const c of ['paths lock <task>', 'paths unlock <task> [P…]', 'paths check']) expect(help).toContain(c);
    const lock = mdclaim(['paths', 'lock', '--help']).stdout;
    expect(lock).toMatch(/^Usage: mdclaim paths lock <task> \[options\]/);
    for (const o of ['--writes P', '--reads P']) expect(lock).toContain(o);
  });
});
