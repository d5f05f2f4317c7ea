import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeKinds } from './contract/kinds.js';
import { mdclaimIn } from './helpers/cli.js';
import { editHook as hook } from './helpers/guard.js';
import { connect } from './helpers/mcp.js';

// A write through a symlink changes the file it leads to: guard and paths check ask about that file too.

const BOARD = '# Work\n\n- [ ] T-1 edit a {writes: src/a.ts}\n- [ ] T-2 edit the link {writes: named.ts}\n- [ ] T-3 free task\n';

const cli = (args: string[], input: string, cwd: string) => mdclaimIn(cwd, args, { input });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describeKinds('a symlinked file on the $name board', (kind) => {
  /** agent-b holds T-1 (src/a.ts) and T-2 (named.ts); the project holds link.ts → src/a.ts, chain.ts → link.ts, named.ts → src/c.ts, made.ts → src/a.ts not yet written. */
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
    writeFileSync(join(root, 'src/c.ts'), 'c');
    symlinkSync('src/a.ts', join(root, 'link.ts'));
    symlinkSync('link.ts', join(root, 'chain.ts'));
    symlinkSync('src/c.ts', join(root, 'named.ts'));
    symlinkSync(join(root, 'src'), join(root, 'lib'));
    return { location: b.location, root };
  }

  it('guard denies an edit through a symlink (a chain of them, a directory one, a target not written yet) to a file another claim holds', async () => {
    const { location, root } = await project();
    for (const name of ['link.ts', 'chain.ts', 'lib/a.ts']) {
      const r = cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, name), root), root);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/agent-b holds src\/a\.ts \(write\) on T-1/);
    }
    // The link's own name is held too: its holder declared it.
    const named = cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, 'named.ts'), root), root);
    expect(JSON.parse(named.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/agent-b holds named\.ts \(write\) on T-2/);
    // The holder itself, and a link to a file nobody holds, go through.
    expect(cli(['guard', '--file', location, '--by', 'agent-b'], hook(join(root, 'link.ts'), root), root)).toEqual({ status: 0, stdout: '', stderr: '' });
    symlinkSync('src/free.ts', join(root, 'free.ts'));
    expect(cli(['guard', '--file', location, '--by', 'agent-a'], hook(join(root, 'free.ts'), root), root)).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('paths check names the holder of the file a symlink leads to (exit 4), and passes the holder', async () => {
    const { location, root } = await project();
    const r = cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--writes', 'link.ts'], '', root);
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(/^error\[CONFLICT\]: agent-b holds src\/a\.ts \(write\) on T-1/);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--reads', 'lib/a.ts'], '', root).status).toBe(4);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-b', '--writes', 'chain.ts'], '', root).status).toBe(0);
    expect(cli(['paths', 'check', '--file', location, '--by', 'agent-a', '--writes', 'src/b.ts'], '', root)).toMatchObject({ status: 0, stdout: 'free: no live claim holds these paths\n' });
  });

  it("MCP's paths_check names the holder of the file a symlink leads to, as paths check does", async () => {
    const { location, root } = await project();
    const s = await connect(location, ['--by', 'agent-a'], {}, root);
    const held = await s.call('paths_check', { writes: ['link.ts'] });
    expect(held.isError).toBe(true);
    expect(held.text).toMatch(/^error\[CONFLICT\]: agent-b holds src\/a\.ts \(write\) on T-1/);
    expect((await s.call('paths_check', { reads: ['lib/a.ts'] })).isError).toBe(true);
    expect(await s.call('paths_check', { writes: ['src/b.ts'] })).toMatchObject({ isError: false, doc: { paths: [] } });
  });
});
