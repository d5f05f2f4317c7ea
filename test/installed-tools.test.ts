import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked } from './helpers/packed.js';

// The packed tarball in an empty project, with only the lock's provider beside it:
// no @modelcontextprotocol/sdk anywhere Node would look from there, and no mdclaim on PATH.
let installed: ReturnType<typeof installPacked>;
beforeAll(() => {
  installed = installPacked(['fs-ext']);
});
afterAll(() => installed?.remove());

describe('mdclaim mcp from the installed package', () => {
  it('answers the SDK client: lists its tools, claims a task, and gives it back when the client goes', async () => {
    const project = installed.project;
    expect(existsSync(join(project, 'node_modules', '@modelcontextprotocol'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/mdclaim/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('@modelcontextprotocol/sdk');
    writeFileSync(join(project, 'tasks.md'), '# Work\n\n- [ ] T-1 the first task\n');

    const bin = join(project, 'node_modules/mdclaim/bin/mdclaim.cjs');
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--file', 'tasks.md', '--by', 'agent-1'], cwd: project, env: {}, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (d: Buffer) => (stderr += d));
    const client = new Client({ name: 'mdclaim-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('next');
      const r = (await client.callTool({ name: 'next', arguments: {} }, undefined, { timeout: 120_000 })) as { isError?: boolean; structuredContent?: { task?: { id: string } } };
      expect(r.isError ?? false, stderr).toBe(false);
      expect(r.structuredContent?.task?.id).toBe('T-1');
      expect(readFileSync(join(project, 'tasks.md'), 'utf8')).toMatch(/^- \[🟡, agent-1, [^\]]+\] T-1 the first task$/m);
    } finally {
      await client.close();
    }
    // Closing stdin ends the session: its claim is released before the server exits.
    const deadline = Date.now() + 120_000;
    while (!/released T-1/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toMatch(/released T-1/);
    expect(readFileSync(join(project, 'tasks.md'), 'utf8')).toMatch(/^- \[ \] T-1 the first task$/m);
  });
});

describe('mdclaim doctor from the installed package', () => {
  it('finds a fresh board in a git repository with the shipped pre-commit hook well, and says which lock it takes', () => {
    const dir = join(installed.project, 'doctor');
    mkdirSync(dir);
    const bin = join(installed.project, 'node_modules/mdclaim/bin/mdclaim.cjs');
    // npm links the bin where the hook looks for it.
    mkdirSync(join(installed.project, 'node_modules/.bin'), { recursive: true });
    symlinkSync('../mdclaim/bin/mdclaim.cjs', join(installed.project, 'node_modules/.bin/mdclaim'));
    spawnSync('git', ['init', '-q', installed.project]);
    const hook = join(installed.project, '.git/hooks/pre-commit');
    writeFileSync(hook, readFileSync(join(installed.project, 'node_modules/mdclaim/examples/pre-commit')), { mode: 0o755 });
    const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: installed.project };
    expect(spawnSync(process.execPath, [bin, 'init'], { cwd: dir, env }).status).toBe(0);
    const r = spawnSync(process.execPath, [bin, 'doctor'], { cwd: dir, encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^✓ lock {8}flock\(2\) through fs-ext/m);
    expect(r.stdout).toMatch(/^✓ reading {5}5 tasks read/m);
    expect(r.stdout).toContain(`✓ hooks       pre-commit installed; it finds ${join(installed.project, 'node_modules/.bin/mdclaim')}`);
    expect(spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', env }).stdout).toMatch(/^\d+\.\d+\.\d+ \(lock: flock\(2\) through fs-ext\)\n$/);
  });
});
