import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, mdclaim } from '../helpers/cli.js';
import { fixture } from '../helpers/procs.js';
import { boardFile } from '../helpers/tmp.js';
import { describeKinds } from './kinds.js';

// The CLI contract on every board: the same output, exit statuses and messages whatever --file names.

const BOARD = '# Sprint\n\n## Git Worktree api\n[] PLAT-1 Add login {backend}\n[⏰] PLAT-2 Add logout {backend}\n\n## Docs\n- [ ] Write the guide {docs}\n';
const json = (out: string) => JSON.parse(out) as Record<string, any>;

describeKinds('mdclaim on the $name board', (kind) => {
  it('lists, claims, refuses and finishes with the documented lines and exit statuses', async () => {
    const { location: f, bytes } = await kind.make(BOARD);
    const list = mdclaim(['list', '--file', f, '--json']);
    expect(list.status).toBe(0);
    expect(json(list.stdout).tasks[0]).toEqual({ id: 'PLAT-1', text: 'PLAT-1 Add login {backend}', line: 4, status: 'open', tags: ['backend'], section: 'Git Worktree api', claimable: true });

    const first = mdclaim(['next', '--file', f, '--by', 'agent-7']);
    expect(first).toMatchObject({ status: 0, stderr: '' });
    expect(first.stdout).toMatch(/^claimed PLAT-1 "Add login \{backend\}" by agent-7 \(lease expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n$/);
    const at = json(mdclaim(['list', '--file', f, '--json']).stdout).tasks[0].claimedAt;

    const taken = mdclaim(['claim', 'PLAT-1', '--file', f, '--by', 'agent-8', '--json']);
    expect(taken.status).toBe(4);
    expect(taken.stderr).toBe(`error[CONFLICT]: PLAT-1 "Add login {backend}" already claimed by agent-7 since ${at}\n`);
    expect(json(taken.stdout)).toEqual({ error: { code: 'CONFLICT', message: `PLAT-1 "Add login {backend}" already claimed by agent-7 since ${at}`, holder: 'agent-7' } });

    const before = await bytes();
    expect(mdclaim(['done', 'PLAT-1', '--file', f, '--by', 'agent-8'])).toMatchObject({ status: 4, stderr: 'error[CONFLICT]: PLAT-1 "Add login {backend}" is claimed by agent-7, not agent-8\n' });
    expect(mdclaim(['done', 'PLAT-1', '--file', f])).toMatchObject({ status: 2, stderr: 'error[USAGE]: done needs --by (or MDCLAIM_BY): only the holder may do this\n' });
    expect(mdclaim(['done', 'NOPE-1', '--file', f, '--by', 'agent-7'])).toMatchObject({ status: 3, stderr: 'error[NOT_FOUND]: no task with id NOPE-1\n' });
    expect(mdclaim(['next', '--file', f, '--by', 'x', '--lease', 'soon']).status).toBe(2);
    expect(await bytes()).toEqual(before);

    expect(mdclaim(['done', 'PLAT-1', '--file', f, '--by', 'agent-7', '--commit', 'abc1234'])).toMatchObject({ status: 0, stdout: 'done PLAT-1 "Add login {backend}" by agent-7 at abc1234\n' });
    const q = mdclaim(['next', '--file', f, '-q'], { MDCLAIM_BY: 'env-agent' });
    expect(q.status).toBe(0);
    expect(q.stdout).toBe('PLAT-2\n');
    expect(mdclaim(['release', 'PLAT-2', '--by', 'env-agent'], { MDCLAIM_FILE: f })).toMatchObject({ status: 0, stdout: 'released PLAT-2 "Add logout {backend}" by env-agent\n' });
    expect(mdclaim(['fail', 'PLAT-2', '--file', f, '--by', 'env-agent', '--reason', 'x']).status).toBe(4);
  });

  it('says nothing is claimable with exit 3, adds tasks, and reaps quietly', async () => {
    const { location: f } = await kind.make('- [x] done\n- [🟡, ghost, 2020-01-01T00:00:00Z] stale\n');
    const reap = mdclaim(['reap', '--file', f, '--ttl', '10m', '--dry-run']);
    expect(reap).toMatchObject({ status: 0 });
    expect(reap.stdout).toMatch(/^would reopen [0-9a-f]{12} "stale" \(claimed by ghost since 2020-01-01T00:00:00Z\)\n$/);
    expect(mdclaim(['reap', '--file', f, '--ttl', '10m']).stdout).toMatch(/^reopened /);
    expect(mdclaim(['reap', '--file', f])).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const added = mdclaim(['add', 'PLAT-9 a new one', '--file', f, '--json']);
    expect(json(added.stdout).task).toMatchObject({ id: 'PLAT-9', line: 3, status: 'open' });
    expect(mdclaim(['next', '--file', f, '--by', 'a', '-q']).stdout).not.toBe('');
    expect(mdclaim(['next', '--file', f, '--by', 'a', '-q']).stdout).toBe('PLAT-9\n');
    const none = mdclaim(['next', '--file', f, '--by', 'a']);
    expect(none).toMatchObject({ status: 3, stdout: '' });
    // The board as given (a URL never carries a password here, so it is shown as is).
    expect(none.stderr).toBe(`nothing to claim in ${f}\n`);
  });

  it('works through the installed bin (the bundle run from its code cache) as through the bundle', async () => {
    const { location: f } = await kind.make('- [ ] PLAT-1 one\n');
    const bin = fileURLToPath(new URL('../../bin/mdclaim.cjs', import.meta.url));
    for (let i = 0; i < 2; i++) {
      // The second run reads the code cache the first one wrote.
      const r = spawnSync(process.execPath, [bin, 'list', '--file', f, '--json'], { encoding: 'utf8' });
      expect([r.status, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(r.stdout).tasks[0]).toMatchObject({ id: 'PLAT-1', status: 'open' });
    }
  });

  it('runs a command for each task with mdclaim run, and marks them done', async () => {
    const { location: f, bytes } = await kind.make('- [ ] one\n- [ ] two\n');
    const r = mdclaim(['run', '--file', f, '--by', 'r1', '--loop', '--until-settled', '--no-commit', '--', 'sh', '-c', 'echo "$MDCLAIM_TASK_TEXT"']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('one\ntwo\n');
    expect((await bytes()).toString()).toBe('- [✅, r1] one\n- [✅, r1] two\n');
  });

  it('locks, lists, checks and unlocks paths with the same lines and exit statuses', async () => {
    const { location: f, bytes } = await kind.make('# Work\n\n- [ ] PLAT-1 Login {writes: src/auth/}\n- [ ] PLAT-2 Docs {reads: src/auth/api.md}\n');
    expect(mdclaim(['claim', 'PLAT-1', '--file', f, '--by', 'dana']).status).toBe(0);
    expect(mdclaim(['paths', 'lock', 'PLAT-1', '--file', f, '--by', 'dana', '--writes', 'docs/api.md'])).toMatchObject({ status: 0, stdout: 'PLAT-1 "Login {writes: src/auth/}" by dana locks docs/api.md (write)\n' });
    expect((await bytes()).toString()).toMatch(/Login \{writes: src\/auth\/\}\n  - 🔒 write docs\/api\.md since \S+Z\n/);
    const before = await bytes();
    expect(mdclaim(['claim', 'PLAT-2', '--file', f, '--by', 'eve'])).toMatchObject({ status: 4, stderr: 'error[CONFLICT]: dana holds src/auth/ (write) on PLAT-1 "Login {writes: src/auth/}"\n' });
    expect(mdclaim(['paths', 'check', '--file', f, '--by', 'eve', '--reads', 'docs/'])).toMatchObject({ status: 4, stderr: 'error[CONFLICT]: dana holds docs/api.md (write) on PLAT-1 "Login {writes: src/auth/}"\n' });
    expect(mdclaim(['paths', 'lock', 'PLAT-1', '--file', f, '--by', 'dana', '--writes', '../out'])).toMatchObject({ status: 2 });
    expect(mdclaim(['paths', 'unlock', 'PLAT-1', '--file', f, '--by', 'dana', 'lib/'])).toMatchObject({ status: 3, stderr: 'error[NOT_FOUND]: PLAT-1 "Login {writes: src/auth/}" has no lock on lib/\n' });
    expect(await bytes()).toEqual(before);
    expect(mdclaim(['paths', 'check', '--file', f, '--by', 'dana', '--writes', 'src/auth/x.ts'])).toMatchObject({ status: 0, stdout: 'yours: src/auth/ (write) on PLAT-1\n' });
    const held = json(mdclaim(['paths', '--file', f, '--json']).stdout).paths;
    expect(held.map((h: any) => [h.path, h.mode, h.task, h.by, h.kind])).toEqual([['src/auth/', 'write', 'PLAT-1', 'dana', 'declared'], ['docs/api.md', 'write', 'PLAT-1', 'dana', 'locked']]);
    expect(mdclaim(['paths', 'unlock', 'PLAT-1', '--file', f, '--by', 'dana'])).toMatchObject({ status: 0 });
    expect((await bytes()).toString()).not.toContain('🔒');
  });

  it("prints a task's history (a file board's from its journal, without heartbeats)", async () => {
    const { location: f } = await kind.make('- [ ] PLAT-1 one\n');
    if (kind.name === 'file') writeFileSync(`${f}.history.jsonl`, '');
    mdclaim(['claim', 'PLAT-1', '--file', f, '--by', 'a']);
    mdclaim(['heartbeat', 'PLAT-1', '--file', f, '--by', 'a']);
    mdclaim(['done', 'PLAT-1', '--file', f, '--by', 'a']);
    const h = mdclaim(['history', 'PLAT-1', '--file', f, '--json']);
    expect(h.status).toBe(0);
    const events = json(h.stdout).events as { event: string; by?: string; via: string }[];
    const own = kind.name === 'pg' ? [['imported', undefined, 'import']] : [];
    const renewed = kind.name === 'pg' ? [['renewed', 'a', 'heartbeat']] : [];
    expect(events.map((e) => [e.event, e.by, e.via])).toEqual([...own, ['claimed', 'a', 'claim'], ...renewed, ['done', 'a', 'done']]);
    expect(mdclaim(['history', 'PLAT-1', '--file', f]).stdout).toMatch(/^(\S+Z {2}PLAT-1 {2}imported {2}\[import\]\n)?\S+Z {2}PLAT-1 {2}claimed by a at \S+Z for 30m {2}\[claim\]\n/);
  });
});

describe('the file board', () => {
  it('never loads pg: the CLI on a file board runs without the PostgreSQL client', () => {
    const file = boardFile(BOARD);
    const traced = (args: string[]) => spawnSync(process.execPath, ['--require', fixture('trace-pg.cjs'), CLI, ...args], { encoding: 'utf8' });
    const r = traced(['next', '--file', file, '--by', 'a']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    // The tracer itself works: a PostgreSQL board does load pg.
    expect(traced(['list', '--file', 'postgres://nobody@127.0.0.1:1/none']).stderr).toMatch(/^loaded pg$/m);
  });
});

describe('option values', () => {
  it('takes a word that is also a flag name as a value: --write replace, --tag json', () => {
    const file = boardFile('- [ ] one {json}\n');
    expect(mdclaim(['next', '--file', file, '--by', 'a', '--write', 'replace', '--tag', 'json', '-q'])).toMatchObject({ status: 0, stderr: '' });
  });
});
