import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked } from './helpers/packed.js';

// The packed tarball in an empty project, with only the lock's provider beside it:
// no @modelcontextprotocol/sdk anywhere Node would look from there.
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
