import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { hasFlock1, outsideHolder, queuedOn, until } from './helpers/locks.js';
import { fixture, lines, startTogether, track } from './helpers/procs.js';
import { boardFile, read } from './helpers/tmp.js';

// The package as a user without a compiler gets it: packed, installed into
// an empty project with every compiler on PATH failing, so fs-ext cannot
// build. It must claim with no setting, wait behind flock(1) on the board's
// directory (the same lock), and race this repository's compiled install.

const root = fileURLToPath(new URL('..', import.meta.url));
let project = '';
let env: NodeJS.ProcessEnv = {};

beforeAll(() => {
  const work = mkdtempSync(join(tmpdir(), 'mdclaim-install-'));
  const stubs = join(work, 'no-compilers');
  mkdirSync(stubs);
  for (const tool of ['cc', 'gcc', 'c++', 'g++', 'clang', 'clang++', 'make', 'python', 'python3']) {
    writeFileSync(join(stubs, tool), '#!/bin/sh\necho "no $0 here" >&2\nexit 1\n');
    chmodSync(join(stubs, tool), 0o755);
  }
  env = { ...process.env, PATH: `${stubs}:${process.env['PATH']}` };
  for (const k of Object.keys(env)) if (k.startsWith('MDCLAIM_') || k.startsWith('npm_')) delete env[k];
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' })) as [{ filename: string }];
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed[0].filename)], { cwd: project, env, stdio: 'ignore' });
  copyFileSync(fixture('installed-claimer.mjs'), join(project, 'claimer.mjs'));
});

afterAll(() => {
  if (project) rmSync(dirname(project), { recursive: true, force: true });
});

/** The installed project's own `mdclaim`, as its user runs it. */
const installed = (args: string[]) => track(spawn(join(project, 'node_modules', '.bin', 'mdclaim'), args, { cwd: project, env }));

function exit(child: ReturnType<typeof spawn>) {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((r) => child.on('close', (status) => r({ status, stdout, stderr })));
}

/** The packages under a node_modules, nested ones too (`@scope/name` counts as one). */
function packagesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith('.')) return [];
    if (name.startsWith('@')) return readdirSync(join(dir, name)).flatMap((sub) => [`${name}/${sub}`, ...packagesIn(join(dir, name, sub, 'node_modules'))]);
    return [name, ...packagesIn(join(dir, name, 'node_modules'))];
  });
}

describe('installed from the packed tarball on a machine without a compiler', () => {
  it('has no fs-ext (its build failed, so npm dropped it) and koffi from its prebuilt package', () => {
    expect(existsSync(join(project, 'node_modules', 'fs-ext', 'build', 'Release'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'koffi', 'package.json'))).toBe(true);
  });

  it('brings at most 30 packages, mdclaim included, none of them the MCP SDK, and says it takes flock(2) through koffi', async () => {
    const names = packagesIn(join(project, 'node_modules'));
    expect(names).toContain('mdclaim');
    expect(names.length, names.join(' ')).toBeLessThanOrEqual(30);
    expect(names.filter((n) => n.startsWith('@modelcontextprotocol/'))).toEqual([]);
    expect((await exit(installed(['--version']))).stdout).toMatch(/^\d+\.\d+\.\d+ \(lock: flock\(2\) through koffi\)\n$/);
  });

  it('claims with no setting', async () => {
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const r = await exit(installed(['next', '--file', file, '--by', 'w']));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
  });

  it.skipIf(!hasFlock1)('waits behind flock(1) on the board’s directory and claims once it lets go', async () => {
    const file = boardFile('- [ ] one\n');
    const h = await outsideHolder(dirname(file));
    const w = installed(['next', '--file', file, '--by', 'w', '--lock-timeout', '60s']);
    const done = exit(w);
    let ended = false;
    void done.then(() => (ended = true));
    try {
      await until(() => queuedOn(dirname(file)) === 1, 'the installed mdclaim to queue behind flock(1)');
      expect(ended).toBe(false);
      expect(read(file)).toBe('- [ ] one\n');
    } finally {
      h.release();
    }
    const r = await done;
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(read(file)).toMatch(/^- \[🟡, w, /);
  });

  it('races this repository’s compiled install on one board, every task claimed once', async () => {
    const tasks = 120;
    const file = boardFile(Array.from({ length: tasks }, (_, i) => `- [ ] task ${i}`).join('\n') + '\n');
    const runs = await startTogether([
      ...Array.from({ length: 4 }, (_, i) => ({ script: join(project, 'claimer.mjs'), args: [file, `bare${i}`, fixture('barrier.mjs')] })),
      ...Array.from({ length: 4 }, (_, i) => ({ script: fixture('provider-claimer.mjs'), args: [file, `built${i}`, '2'] })),
    ]);
    const exits = await Promise.all(runs.map((r) => r.done));
    for (const e of exits) expect(e.stderr).toBe('');
    expect(exits.map((e) => lines(e.stdout, 'provider')[0])).toEqual(['koffi', 'koffi', 'koffi', 'koffi', 'fs-ext', 'fs-ext', 'fs-ext', 'fs-ext']);
    const ids = exits.flatMap((e) => lines(e.stdout, 'claimed'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(tasks);
    expect(exits.slice(0, 4).some((e) => lines(e.stdout, 'claimed').length > 0)).toBe(true);
    expect(parseTasks(read(file)).every((t) => t.status === 'claimed')).toBe(true);
  });
});
