import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from './helpers/cli.js';
import { boardUrl, dropBoards, importBoard, PG_URL, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { bytesOf } from './helpers/tmp.js';

const ROOT = join(dirname(CLI), '..');
const fixture = (name: string) => join(ROOT, 'test', 'fixtures', name);
// PATH without any mdclaim on it, so a hook finds one only where the project installed it.
const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

/** This environment less every MDCLAIM_ setting, plus `extra`. */
const cleanEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_'))), ...extra });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh project directory (a git repository when asked). */
function project(git = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'mdclaim-doctor-'));
  dirs.push(dir);
  if (git) spawnSync('git', ['init', '-q', dir]);
  return dir;
}

interface Found {
  check: string;
  verdict: 'ok' | 'warn' | 'fail' | 'skip';
  says: string;
  fix?: string;
}

/** `mdclaim doctor` as text and as --json, at once (never blocking this process: the relay below runs in it). */
async function doctor(cwd: string, args: string[] = [], env: Record<string, string> = {}) {
  const run = (json: boolean) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [CLI, 'doctor', ...args, ...(json ? ['--json'] : [])], { cwd, encoding: 'utf8', env: cleanEnv({ PATH, ...env }) }, (err, stdout, stderr) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
  const [text, json] = await Promise.all([run(false), run(true)]);
  expect(json.status).toBe(text.status);
  const doc = JSON.parse(json.stdout) as { ok: boolean; findings: Found[] };
  expect(doc.ok).toBe(text.status === 0);
  return { status: text.status, stdout: text.stdout, stderr: text.stderr, findings: doc.findings, of: (check: string) => doc.findings.filter((f) => f.check === check) };
}

describe('mdclaim doctor on a markdown board', () => {
  it('finds nothing wrong with a fresh init board: every finding well, exit 0, one line each', async () => {
    const dir = project(true);
    expect(spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, env: cleanEnv({ PATH }) }).status).toBe(0);
    const r = await doctor(dir);
    expect(r.status, r.stdout).toBe(0);
    expect(r.findings.map((f) => f.check)).toEqual(['lock', 'board', 'file system', 'permissions', 'reading', 'hooks']);
    expect(r.findings.filter((f) => f.verdict !== 'ok' && f.verdict !== 'skip')).toEqual([]);
    expect(r.of('lock')[0]!.says).toMatch(/^flock\(2\) through fs-ext; an install using koffi .* the same lock/);
    expect(r.of('reading')[0]!.says).toBe('5 tasks read, 5 open or waiting');
    expect(r.stdout).toMatch(/^✓ lock {8}flock\(2\) through fs-ext/m);
    expect(r.stdout).toMatch(/^- hooks {7}no pre-commit or pre-push hook/m);
    expect(r.stderr).toBe('');
  });

  it('fails on a board that is not there, says how to make one, and creates nothing', async () => {
    const dir = project();
    const r = await doctor(dir, ['--file', 'work/tasks.md']);
    expect(r.status).toBe(1);
    expect(r.of('board')).toEqual([expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(/no directory/) })]);
    mkdirSync(join(dir, 'work'));
    const again = await doctor(dir, ['--file', 'work/tasks.md']);
    expect(again.status).toBe(1);
    expect(again.of('board')).toEqual([{ check: 'board', verdict: 'fail', says: `${join(dir, 'work/tasks.md')}: no such file`, fix: expect.stringContaining('npx mdclaim init --file work/tasks.md') }]);
    expect(again.stdout).toMatch(/^✗ board .*no such file\n {14}fix: npx mdclaim init/m);
    expect(existsSync(join(dir, 'work/tasks.md'))).toBe(false);
  });

  it('names the line a claim would be refused for (exit 1), warns of task lines no claim reads (exit 0 alone), and leaves the board as it was', async () => {
    const dir = project();
    const file = join(dir, 'tasks.md');
    writeFileSync(file, '# W\n\n- [ ] A {writes: ../outside.ts}\n- [ ] B\n\n```\n- [ ] in a code block\n```\n<!--\n- [ ] commented out, as meant\n-->\n- [x] done\n');
    const before = bytesOf(file);
    const r = await doctor(dir);
    expect(r.status).toBe(1);
    expect(r.of('reading')).toEqual([
      expect.objectContaining({ verdict: 'ok', says: '3 tasks read, 2 open or waiting' }),
      expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(new RegExp(`^${file}:3: a claim is refused: line 3 declares .*\\.\\./outside\\.ts`)) }),
      expect.objectContaining({ verdict: 'warn', says: `${file}:7: looks like a task but is not one: in a code block, an HTML block or a heading` }),
    ]);
    expect(bytesOf(file).equals(before)).toBe(true);
    // The same claim through the CLI is refused as doctor said.
    expect(spawnSync(process.execPath, [CLI, 'next', '--by', 'w'], { cwd: dir, encoding: 'utf8', env: cleanEnv({ PATH }) }).stderr).toMatch(/line 3 declares/);

    writeFileSync(file, '- [ ] A\n- [ ]\n');
    const warned = await doctor(dir);
    expect(warned.status).toBe(0);
    expect(warned.of('reading').map((f) => f.verdict)).toEqual(['ok', 'warn']);
    expect(warned.stdout).toMatch(/^! reading {5}.*tasks\.md:2: looks like a task/m);
  });
});

describe('mdclaim doctor and --version on the lock', () => {
  const board = () => {
    const dir = project();
    writeFileSync(join(dir, 'tasks.md'), '- [ ] A\n');
    return dir;
  };
  const version = (env: Record<string, string>) => spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', env: cleanEnv(env) }).stdout;

  it('names fs-ext, or koffi where fs-ext cannot load; either shares the lock with the other', async () => {
    const dir = board();
    const koffi = { NODE_OPTIONS: `--import=${fixture('no-fs-ext.mjs')}` };
    expect(version({})).toMatch(/^\d+\.\d+\.\d+ \(lock: flock\(2\) through fs-ext\)\n$/);
    expect(version(koffi)).toMatch(/^\d+\.\d+\.\d+ \(lock: flock\(2\) through koffi\)\n$/);
    const r = await doctor(dir, [], koffi);
    expect(r.status).toBe(0);
    expect(r.of('lock')).toEqual([expect.objectContaining({ verdict: 'ok', says: expect.stringMatching(/^flock\(2\) through koffi; an install using fs-ext \(a compiled install\) takes the same lock/) })]);
  });

  it('warns that MDCLAIM_LOCK=mkdir is seen only by processes with the same setting (exit 0), and fails on a lock it does not know', async () => {
    const dir = board();
    expect(version({ MDCLAIM_LOCK: 'mkdir' })).toMatch(/\(lock: mkdir \(MDCLAIM_LOCK=mkdir\)\)\n$/);
    const mkdir = await doctor(dir, [], { MDCLAIM_LOCK: 'mkdir' });
    expect(mkdir.status).toBe(0);
    expect(mkdir.of('lock')).toEqual([expect.objectContaining({ verdict: 'warn', says: expect.stringMatching(/only processes with the same setting/), fix: expect.stringMatching(/MDCLAIM_LOCK=mkdir for every process/) })]);
    const bogus = await doctor(dir, [], { MDCLAIM_LOCK: 'fcntl' });
    expect(bogus.status).toBe(1);
    expect(bogus.of('lock')).toEqual([expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(/unknown lock "fcntl"/) })]);
  });
});

describe('mdclaim doctor on the git hooks', () => {
  it('fails while the installed pre-commit hook cannot run or cannot find mdclaim, and passes once it can', async () => {
    const dir = project(true);
    writeFileSync(join(dir, 'tasks.md'), '- [ ] A\n');
    const hook = join(dir, '.git', 'hooks', 'pre-commit');
    copyFileSync(join(ROOT, 'examples', 'pre-commit'), hook);
    chmodSync(hook, 0o644);
    expect((await doctor(dir)).of('hooks')).toEqual([expect.objectContaining({ verdict: 'fail', says: `${hook} is not executable: git skips it`, fix: `chmod +x ${hook}` })]);
    chmodSync(hook, 0o755);
    const missing = await doctor(dir);
    expect(missing.status).toBe(1);
    expect(missing.of('hooks')).toEqual([expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(/finds no mdclaim .* it would refuse every commit/), fix: `npm install mdclaim in ${dir}` })]);
    // The project's own mdclaim, where npm puts it.
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(join(ROOT, 'bin', 'mdclaim.cjs'), join(dir, 'node_modules', '.bin', 'mdclaim'));
    const found = await doctor(dir);
    expect(found.status).toBe(0);
    expect(found.of('hooks')).toEqual([expect.objectContaining({ verdict: 'ok', says: `pre-commit installed; it finds ${join(dir, 'node_modules', '.bin', 'mdclaim')}` })]);
  });
});

describe('mdclaim doctor on the pre-push hook', () => {
  it('checks an installed pre-push hook beside the pre-commit one: each finding names its hook', async () => {
    const dir = project(true);
    writeFileSync(join(dir, 'tasks.md'), '- [ ] A\n');
    const push = join(dir, '.git', 'hooks', 'pre-push');
    copyFileSync(join(ROOT, 'examples', 'pre-push'), push);
    chmodSync(push, 0o755);
    const alone = await doctor(dir);
    expect(alone.status).toBe(1);
    expect(alone.of('hooks')).toEqual([expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(/^pre-push installed, but finds no mdclaim .* it would refuse every push made under a claim$/) })]);
    copyFileSync(join(ROOT, 'examples', 'pre-commit'), join(dir, '.git', 'hooks', 'pre-commit'));
    chmodSync(join(dir, '.git', 'hooks', 'pre-commit'), 0o755);
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(join(ROOT, 'bin', 'mdclaim.cjs'), join(dir, 'node_modules', '.bin', 'mdclaim'));
    const both = await doctor(dir);
    expect(both.status).toBe(0);
    const bin = join(dir, 'node_modules', '.bin', 'mdclaim');
    expect(both.of('hooks').map((f) => [f.verdict, f.says])).toEqual([['ok', `pre-commit installed; it finds ${bin}`], ['ok', `pre-push installed; it finds ${bin}`]]);
  });
});

describe.skipIf(!pgReachable)(pgTitle('mdclaim doctor on a PostgreSQL board'), () => {
  const made: string[] = [];
  let proxy: Server | undefined;
  afterEach(async () => {
    await dropBoards(made.splice(0));
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    proxy = undefined;
  });

  it('connects, reads the schema version and the board, and fails for a board that is not there', async () => {
    const dir = project();
    const name = uniqueBoard('doctor');
    const missing = await doctor(dir, ['--file', boardUrl(name)]);
    expect(missing.status).toBe(1);
    expect(missing.findings.map((f) => [f.check, f.verdict])).toEqual([
      ['connection', 'ok'],
      ['schema', expect.stringMatching(/^(ok|warn)$/)],
      ['board', 'fail'],
      ['pooler', 'ok'],
      ['hooks', 'skip'],
    ]);
    expect(missing.of('connection')[0]!.says).toMatch(/: PostgreSQL \d+/);
    await importBoard(name, '- [ ] A\n');
    made.push(name);
    const r = await doctor(dir, ['--file', boardUrl(name)]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.of('board')).toEqual([expect.objectContaining({ verdict: 'ok', says: `board "${name}"` })]);
  });

  it('says a pooler or proxy stands between when the port it reached is not the server\'s (exit 0), and fails on a server it cannot reach', async () => {
    const dir = project();
    const name = uniqueBoard('doctor');
    await importBoard(name, '- [ ] A\n');
    made.push(name);
    const target = new URL(PG_URL);
    // A plain TCP relay stands in for a pooler: another port in front of the same server.
    proxy = createServer((client) => {
      const server = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      client.pipe(server).pipe(client);
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const via = new URL(boardUrl(name));
    via.hostname = '127.0.0.1';
    via.port = String((proxy.address() as { port: number }).port);
    const r = await doctor(dir, ['--file', via.toString()]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.of('pooler')).toEqual([expect.objectContaining({ verdict: 'warn', says: expect.stringMatching(/a pooler or proxy stands between/), fix: expect.stringMatching(/session mode/) })]);

    const closed = new URL(via);
    await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    proxy = undefined;
    const down = await doctor(dir, ['--file', closed.toString()]);
    expect(down.status).toBe(1);
    expect(down.of('connection')).toEqual([expect.objectContaining({ verdict: 'fail', says: expect.stringMatching(/cannot connect/) })]);
    expect(down.stdout).not.toMatch(/password|at .*\.js:/);
  });
});
