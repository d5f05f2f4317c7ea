import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boardFile, read } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Node 22.1+ keeps the cache itself; the file beside the bundle is the older Nodes' way.
const ownCache = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache !== 'function';

/** A copy of the bin and the bundle in a directory of its own, so its cache file is this test's alone. */
function install(): { bin: string; dist: string } {
  const root = dirname(boardFile('', 'placeholder'));
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist'));
  copyFileSync(join(ROOT, 'bin/mdclaim.cjs'), join(root, 'bin/mdclaim.cjs'));
  copyFileSync(join(ROOT, 'dist/cli.cjs'), join(root, 'dist/cli.cjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { bin: join(root, 'bin/mdclaim.cjs'), dist: join(root, 'dist') };
}

function run(bin: string, board: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_') && k !== 'NODE_COMPILE_CACHE'));
  return spawnSync(process.execPath, [bin, 'next', '--file', board, '--by', 'w', '-q'], { encoding: 'utf8', env });
}

const cacheOf = (dist: string) => readdirSync(dist).filter((f) => f.endsWith('.v8cache')).map((f) => join(dist, f));

describe('the mdclaim bin', () => {
  it('runs the CLI, and keeps the compiled code for the next call', () => {
    const { bin, dist } = install();
    const board = boardFile('- [ ] one\n- [ ] two\n');
    const first = run(bin, board);
    expect(first.status, first.stderr).toBe(0);
    expect(read(board)).toMatch(/^- \[🟡, w, [^\]]+\] one\n- \[ \] two\n$/);
    if (!ownCache) return;
    const [cache] = cacheOf(dist);
    expect(cache).toBeDefined();
    const st = statSync(join(dist, 'cli.cjs'));
    expect(readFileSync(cache!, 'latin1').startsWith(`${st.size} ${st.mtimeMs} ${st.ino}\n`)).toBe(true);
    const made = statSync(cache!).mtimeMs;
    const second = run(bin, board);
    expect(second.status, second.stderr).toBe(0);
    expect(read(board)).toMatch(/^- \[🟡, w, [^\]]+\] one\n- \[🟡, w, [^\]]+\] two\n$/);
    // A cache V8 took is not written again.
    expect(statSync(cache!).mtimeMs).toBe(made);
  });

  it('runs the bundle as it is now, not as a cache made from an earlier one of the same length says', () => {
    const { bin, dist } = install();
    const board = boardFile('- [ ] one\n- [ ] two\n');
    const say = (r: ReturnType<typeof run>) => r.stdout.trim();
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_')));
    const next = () => spawnSync(process.execPath, [bin, 'next', '--file', board, '--by', 'w'], { encoding: 'utf8', env });
    expect(say(next())).toMatch(/^claimed /);
    // V8 checks a cache against the length of the source alone.
    const bundle = join(dist, 'cli.cjs');
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('`claimed ${');
    const changed = text.replaceAll('`claimed ${', '`CLAIMED ${');
    expect(changed.length).toBe(text.length);
    writeFileSync(bundle, changed);
    expect(say(next())).toMatch(/^CLAIMED /);
  });

  it.skipIf(!ownCache)('ignores a cache made from another bundle, or one V8 refuses, and makes a new one', () => {
    const { bin, dist } = install();
    const board = boardFile('- [ ] one\n- [ ] two\n- [ ] three\n');
    expect(run(bin, board).status).toBe(0);
    const [cache] = cacheOf(dist);
    const st = statSync(join(dist, 'cli.cjs'));
    const stamp = `${st.size} ${st.mtimeMs} ${st.ino}\n`;
    for (const bad of [`${st.size + 1} 0 0\n${'x'.repeat(4096)}`, `${stamp}${'x'.repeat(4096)}`]) {
      writeFileSync(cache!, bad);
      const r = run(bin, board);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const again = readFileSync(cache!, 'latin1');
      expect(again.startsWith(stamp) && again !== `${stamp}${'x'.repeat(4096)}`).toBe(true);
    }
    expect(read(board)).not.toMatch(/\[ \]/);
    expect(existsSync(`${cache}.tmp`)).toBe(false);
  });
});

describe('what a CLI call loads', () => {
  /** The builtins a fresh `mdclaim next` loaded, run from the repository's bin. */
  function loaded(args: string[]): string[] {
    const board = boardFile('- [ ] one\n- [ ] two\n');
    const out = join(dirname(board), 'loaded.txt');
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_'))), MDCLAIM_TEST_LOADED: out };
    const fixture = join(ROOT, 'test/fixtures/loaded-builtins.cjs');
    const r = spawnSync(process.execPath, ['-r', fixture, join(ROOT, 'bin/mdclaim.cjs'), 'next', '--file', board, ...args], { encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(out, 'utf8').split('\n').filter(Boolean);
  }

  it('leaves node:child_process, node:crypto and node:readline unloaded when it neither spawns, makes up a name nor reads keys (each costs a fresh process milliseconds)', () => {
    const got = loaded(['--by', 'w', '-q']);
    expect(got).toContain('fs');
    expect(got).not.toContain('child_process');
    expect(got).not.toContain('crypto');
    expect(got).not.toContain('readline');
    // node:module loads Node's ES module loader too: only Node 22.1+, whose own compile cache the bin turns on through it, needs it.
    if (ownCache) expect(got).not.toContain('module');
    // node:os loads at its first use (the bundle's hoisted require is lazy): a claim with --by asks it nothing. On
    // Node 22.1+, node:module's own compile cache loads node:os itself, as it does for any script that turns it on.
    if (ownCache) expect(got).not.toContain('os');
    // The look can see a load: a claim that makes up its claimant's name needs node:crypto.
    expect(loaded(['--json'])).toContain('crypto');
  });

  it('is ASCII only, so V8 holds its source one byte a character (a single other character makes the whole of it two)', () => {
    const bytes = readFileSync(join(ROOT, 'dist/cli.cjs'));
    const at = bytes.findIndex((b) => b > 0x7f);
    expect(at === -1 ? '' : bytes.subarray(Math.max(0, at - 40), at + 40).toString('utf8')).toBe('');
  });
});
