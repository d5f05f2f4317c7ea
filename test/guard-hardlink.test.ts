import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeKinds } from './contract/kinds.js';
import { mdclaimIn } from './helpers/cli.js';
import { editHook as hook } from './helpers/guard.js';
import { connect } from './helpers/mcp.js';

// A write through a hard link changes the file another name of it holds: guard and paths check treat
// a hard link to a held file as that file.

const BOARD = '# Work\n\n- [ ] T-1 edit a {writes: src/a.ts}\n- [ ] T-2 edit lib {writes: lib/}\n- [ ] T-3 free task\n';

const cli = (args: string[], input: string, cwd: string) => mdclaimIn(cwd, args, { input });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describeKinds('a hard-linked file on the $name board', (kind) => {
  /** agent-b holds T-1 (src/a.ts) and T-2 (lib/); the project has copy.ts and deep.ts, hard links to src/a.ts and lib/x/y.ts. */
  async function project() {
    const b = await kind.make(BOARD);
    await b.board.claim('T-1', { by: 'agent-b' });
    await b.board.claim('T-2', { by: 'agent-b' });
    let root = dirname(b.location);
    if (kind.name !== 'file') {
      root = mkdtempSync(join(tmpdir(), 'mdclaim-project-'));
      dirs.push(root);
    }
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'lib', 'x'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'a');
    writeFileSync(join(root, 'lib/x/y.ts'), 'y');
    linkSync(join(root, 'src/a.ts'), join(root, 'copy.ts'));
    linkSync(join(root, 'lib/x/y.ts'), join(root, 'deep.ts'));
    writeFileSync(join(root, 'free.ts'), 'f');
    return { location: b.location, root };
  }

  it('guard denies an edit through a hard link to a held file, or to a file in a held directory, and lets the holder and a free file through', async () => {
    const { location, root } = await project();
    const copy = cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, 'copy.ts'), root), root);
    expect(copy.status, copy.stderr).toBe(0);
    expect(JSON.parse(copy.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/agent-b holds src\/a\.ts \(write\) on T-1/);
    const deep = cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, 'deep.ts'), root), root);
    expect(JSON.parse(deep.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/agent-b holds lib\/ \(write\) on T-2/);
    expect(cli(['guard', '--file', location, '--by', 'agent-b'], hook(join(root, 'copy.ts'), root), root)).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, 'free.ts'), root), root)).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('paths check names the holder of the file a hard link shares (exit 4), and passes the holder', async () => {
    const { location, root } = await project();
    const r = cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--writes', 'copy.ts'], '', root);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/^error\[CONFLICT\]: agent-b holds src\/a\.ts \(write\) on T-1/);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--reads', 'deep.ts'], '', root).status).toBe(4);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-b', '--writes', 'copy.ts'], '', root).status).toBe(0);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--writes', 'free.ts'], '', root)).toMatchObject({ status: 0, stdout: 'free: no live claim holds these paths\n' });
  });

  it("MCP's paths_check names the holder of the file a hard link shares, as paths check does", async () => {
    const { location, root } = await project();
    const s = await connect(location, ['--by', 'agent-a'], {}, root);
    const held = await s.call('paths_check', { writes: ['copy.ts'] });
    expect(held.isError).toBe(true);
    expect(held.text).toMatch(/^error\[CONFLICT\]: agent-b holds src\/a\.ts \(write\) on T-1/);
    expect(await s.call('paths_check', { writes: ['free.ts'] })).toMatchObject({ isError: false, doc: { paths: [] } });
  });
});
