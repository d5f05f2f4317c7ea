import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, ROOT } from './helpers/packed.js';

// The package as a user installs it: the packed tarball in node_modules, and
// beside it only what npm would install for it at run time (fs-ext, for the lock).
let esm: ReturnType<typeof installPacked>;
let cjs: ReturnType<typeof installPacked>;
beforeAll(() => {
  esm = installPacked(['fs-ext']);
  cjs = installPacked(['fs-ext'], 'commonjs');
});
afterAll(() => {
  esm?.remove();
  cjs?.remove();
});

const clean = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_')));

describe('the shipped examples, run from the installed package', () => {
  it('examples/run.sh works its sample board until it is settled', () => {
    const r = spawnSync('sh', ['node_modules/mdclaim/examples/run.sh'], { cwd: esm.project, encoding: 'utf8', env: clean(), timeout: 120_000 });
    expect(r.stderr).not.toMatch(/cannot stat|No such file|error\[/);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // Tasks tagged {docs} fail by design; the others are done. list shows each task's section before its text.
    expect(r.stdout).toMatch(/done by run-\w+ +Git Worktree api +Add the \/health endpoint/);
    expect(r.stdout).toMatch(/failed by run-\w+ +Chores +Add a CHANGELOG entry/);
    expect(r.stdout).not.toMatch(/^\w+ +open /m);
  });

  it('examples/polling-trigger.js claims and finishes every task of a board with the installed library', () => {
    writeFileSync(join(esm.project, 'tasks.md'), '## api\n- [ ] First {backend}\n- [ ] Second {backend}\n');
    const r = spawnSync(process.execPath, ['node_modules/mdclaim/examples/polling-trigger.js'], {
      cwd: esm.project,
      encoding: 'utf8',
      env: { ...clean(), MDCLAIM_FILE: 'tasks.md', AGENT_ID: 'agent-1', WORK_MS: '100', EXIT_WHEN_IDLE: '1' },
      timeout: 120_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(esm.project, 'tasks.md'), 'utf8')).toMatch(/^## api\n- \[✅( \S+)?, agent-1\] First \{backend\}\n- \[✅( \S+)?, agent-1\] Second \{backend\}\n$/);
  });
});

describe('loading the installed package', () => {
  const names = ['Board', 'DEFAULT_LEASE', 'MdclaimError', 'PgBoard', 'openBoard', 'parseDuration', 'parseTasks', 'runTasks'];

  it('imports from an ES module', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "import * as m from 'mdclaim'; console.log(JSON.stringify(Object.keys(m).sort()))"], { cwd: esm.project, encoding: 'utf8' });
    expect(JSON.parse(r.stdout)).toEqual(names);
  });

  // What the README says: require() loads it where Node loads ES modules through require (20.19+, 22.12+), and only there.
  it(`require() from CommonJS ${process.features.require_module ? 'works on this Node' : 'throws ERR_REQUIRE_ESM on this Node'} (${process.version})`, () => {
    const r = spawnSync(process.execPath, ['-e', "console.log(JSON.stringify(Object.keys(require('mdclaim')).sort()))"], { cwd: cjs.project, encoding: 'utf8' });
    if (process.features.require_module) {
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(names);
    } else {
      expect(r.stderr).toMatch(/ERR_REQUIRE_ESM/);
    }
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(process.features.require_module ?? false).toBe((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22);
  });
});

describe('the README, as a landing page', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  // Each `$ npx mdclaim …` of the first block, run in a fresh directory, prints what the block shows (times aside).
  it("runs the first screen's quickstart as written, from the installed package", () => {
    const block = /```console\n([\s\S]*?)```/.exec(readme)![1]!;
    const steps = block.split(/^\$ /m).filter(Boolean).map((s) => s.split('\n').filter(Boolean));
    const dir = join(esm.project, 'quickstart');
    mkdirSync(dir);
    let ran = 0;
    for (const [line, ...shown] of steps) {
      const words = line!.replace(/\s+#.*$/, '');
      if (!words.startsWith('npx mdclaim ') || / run --loop /.test(words)) continue;
      const [cmd, append] = words.slice('npx mdclaim '.length).split(' >> ');
      const r = spawnSync(process.execPath, [join(esm.project, 'node_modules/mdclaim/bin/mdclaim.cjs'), ...cmd!.split(' ')], { cwd: dir, encoding: 'utf8', env: clean() });
      expect(r.status, `${words}: ${r.stderr}`).toBe(0);
      if (append) {
        writeFileSync(join(dir, append), r.stdout, { flag: 'a' });
        expect(readFileSync(join(dir, append), 'utf8')).toMatch(/mdclaim next --by NAME/);
      } else {
        const times = (t: string) => t.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'T');
        expect(times(r.stdout.split('\n')[0]!), words).toBe(times(shown[0]!));
      }
      ran++;
    }
    expect(ran).toBe(4);
  });

  it('is at most 400 lines, with install, init, next, done and run in its first 20', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThanOrEqual(400);
    const first = lines.slice(0, 20).join('\n');
    for (const step of ['npm install mdclaim', 'mdclaim init', 'mdclaim next', 'mdclaim done', 'mdclaim run']) expect(first).toContain(step);
  });

  it('follows the landing-page outline', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const outline = ['What is this?', 'When should I use this?', 'Install', 'Use', 'The format', 'API', 'Compatibility', 'Security', 'License'];
    expect(headings.filter((h) => outline.includes(h))).toEqual(outline);
  });
});
