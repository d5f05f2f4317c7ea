import { afterAll, describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// mdclaim status: the summary once, for scripts and cron.

const BOARD = `# Backend

- [✅, ann] Set up the repo
- [ ] Fix the login {writes: src/auth/}
- [ ] Touch the login too {writes: src/auth/login.ts}
- [⏰] Deploy after the above

# Frontend

- [❌, carol] Build the page // Failed: the build broke
- [🟡, adw1] An ADW claim with no time
- [🟡, old, 2020-01-01T00:00:00Z] A claim from long ago
`;

interface Status {
  board: string;
  at: string;
  counts: Record<string, number>;
  sections: { name: string | null; done: number; total: number }[];
  claims: Record<string, unknown>[];
  live: number;
  lapsed: number;
  untimed: number;
  oldestClaim: Record<string, unknown> | null;
  paths: Record<string, unknown>[];
  blocked: Record<string, unknown>[];
  failures: Record<string, unknown>[];
  doneRate: unknown;
}

function check(location: string, ids: Record<string, string>) {
  const r = mdclaim(['status', '--json', '-f', location]);
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('');
  const s = JSON.parse(r.stdout) as Status;
  expect(Object.keys(s)).toEqual(['board', 'at', 'counts', 'sections', 'claims', 'live', 'lapsed', 'untimed', 'oldestClaim', 'paths', 'blocked', 'failures', 'doneRate', 'tasks', 'history']);
  expect(s.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(s.counts).toEqual({ open: 1, blocked: 1, claimed: 3, done: 1, failed: 1, total: 7 });
  expect(s.sections).toEqual([
    { name: 'Backend', done: 1, total: 4 },
    { name: 'Frontend', done: 0, total: 3 },
  ]);
  expect(s.claims.map((c) => [c['by'], c['state']])).toEqual([
    ['old', 'lapsed'],
    ['alice', 'live'],
    ['adw1', 'untimed'],
  ]);
  expect([s.live, s.lapsed, s.untimed]).toEqual([1, 1, 1]);
  const alice = s.claims[1]!;
  expect(alice).toMatchObject({ id: ids['login'], text: 'Fix the login {writes: src/auth/}', lease: '30m', state: 'live' });
  expect(alice['heldMs']).toBeGreaterThanOrEqual(0);
  expect(alice['leftMs']).toBeGreaterThan(0);
  expect(Date.parse(alice['expiresAt'] as string) - Date.parse(alice['claimedAt'] as string)).toBe(30 * 60_000);
  expect(s.oldestClaim).toMatchObject({ by: 'old', state: 'lapsed', claimedAt: '2020-01-01T00:00:00Z' });
  expect(s.paths).toEqual([{ path: 'src/auth/', mode: 'write', kind: 'declared', task: ids['login'], by: 'alice' }]);
  expect(s.blocked).toEqual([
    { id: ids['touch'], text: 'Touch the login too {writes: src/auth/login.ts}', reason: 'path', path: 'src/auth/', mode: 'write', task: ids['login'], by: 'alice' },
    { id: ids['deploy'], text: 'Deploy after the above', reason: 'above', task: ids['login'] },
  ]);
  expect(s.failures).toEqual([{ id: ids['page'], text: 'Build the page', by: 'carol', reason: 'the build broke' }]);
  expect(s.doneRate).toBeNull();
  return s;
}

function idsOf(location: string): Record<string, string> {
  const tasks = (JSON.parse(mdclaim(['list', '--json', '-f', location]).stdout) as { tasks: { id: string; text: string }[] }).tasks;
  const id = (start: string) => tasks.find((t) => t.text.startsWith(start))!.id;
  return { login: id('Fix the login'), touch: id('Touch the login'), deploy: id('Deploy'), page: id('Build the page') };
}

describe('mdclaim status on a file board', () => {
  it('prints the summary as one JSON document, field by field, and writes nothing', () => {
    const file = boardFile(BOARD);
    const ids = idsOf(file);
    expect(mdclaim(['claim', ids['login']!, '--by', 'alice', '-f', file]).status).toBe(0);
    const before = bytesOf(file);
    expect(check(file, ids).board).toBe(file);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('prints the same as text, every block in full', () => {
    const file = boardFile(BOARD);
    const r = mdclaim(['status', '-f', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('open 2  blocked 1  claimed 2 (1 lapsed)  done 1  failed 1   7 tasks');
    expect(r.stdout).toMatch(/Backend\s+\[#{5}\.{15}\] 1\/4 done/);
    expect(r.stdout).toMatch(/oldest claim: \w+ by old, held \d+d\d\dh \(lapsed\)/);
    expect(r.stdout).toContain('LAPSED');
    expect(r.stdout).toContain('the build broke');
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  it('exits 5 with --fail-on-lapsed when a claim has lapsed, 0 when none has', () => {
    const file = boardFile(BOARD);
    expect(mdclaim(['status', '--fail-on-lapsed', '-f', file]).status).toBe(5);
    expect(mdclaim(['status', '--fail-on-lapsed', '--json', '-f', file]).status).toBe(5);
    // Only the claims shown count: the lapsed one is in Frontend.
    expect(mdclaim(['status', '--fail-on-lapsed', '--section', 'Backend', '-f', file]).status).toBe(0);
    expect(mdclaim(['status', '-f', file]).status).toBe(0);
  });

  it('refuses what it does not take, and a missing board, in one line', () => {
    const file = boardFile(BOARD);
    let r = mdclaim(['status', '--by', 'x', '-f', file]);
    expect([r.status, r.stderr]).toEqual([2, 'error[USAGE]: status does not take --by\n']);
    r = mdclaim(['status', '-f', `${file}.missing`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error\[\w+\]: [^\n]*\n$/);
    r = mdclaim(['watch', '--json', '-f', file]);
    expect([r.status, r.stderr]).toEqual([2, 'error[USAGE]: watch does not take --json\n']);
    // Not on a terminal: watch says what to use instead.
    r = mdclaim(['watch', '-f', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error\[USAGE\]: watch needs a terminal .*mdclaim status/);
  });

  it('teaches with --help', () => {
    const status = mdclaim(['status', '--help']).stdout;
    expect(status).toContain('--fail-on-lapsed');
    expect(status).toContain('exit 5');
    const watch = mdclaim(['watch', '--help']).stdout;
    expect(watch).toMatch(/q or Ctrl-C quits/);
    expect(watch).toContain('NO_COLOR');
    expect(mdclaim(['--help']).stdout).toMatch(/\n {2}watch +a live full-screen view/);
  });
});

const names: string[] = [];
afterAll(() => dropBoards(names));

describe.skipIf(!pgReachable)(pgTitle('mdclaim status on a PostgreSQL board'), () => {
  it('prints the same summary, field by field', () => {
    const name = uniqueBoard('status');
    names.push(name);
    const url = boardUrl(name);
    expect(mdclaim(['import', boardFile(BOARD), '--to', url]).status).toBe(0);
    const ids = idsOf(url);
    expect(mdclaim(['claim', ids['login']!, '--by', 'alice', '-f', url]).status).toBe(0);
    expect(check(url, ids).board).toMatch(new RegExp(`\\?board=${name}$`));
    expect(mdclaim(['status', '--fail-on-lapsed', '-f', url]).status).toBe(5);
  });
});
