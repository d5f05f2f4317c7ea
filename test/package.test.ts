import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { track } from './helpers/procs.js';
import { until } from './helpers/runner.js';
import { docFiles, packedFiles, repositoryOnly } from './helpers/packed.js';
import { boardFile, read } from './helpers/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** The bare package names the modules reachable from `entry` load (import, import(), require). */
function packagesLoadedFrom(entry: string, seen = new Set<string>(), found = new Set<string>()): Set<string> {
  if (seen.has(entry)) return found;
  seen.add(entry);
  const src = readFileSync(entry, 'utf8');
  // A specifier is a module name or path: no spaces or punctuation, so code such as `one(p, "from")` never reads as an import.
  for (const m of src.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([.@\w][\w@./:-]*)\1/gm)) {
    const spec = m[2]!;
    if (spec.startsWith('node:')) continue;
    if (spec.startsWith('.')) packagesLoadedFrom(resolve(dirname(entry), spec), seen, found);
    else found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return found;
}

describe('the package as published', () => {
  it('depends at run time on exactly what its shipped code loads', () => {
    const loaded = new Set([...packagesLoadedFrom(join(root, 'dist/index.js')), ...packagesLoadedFrom(join(root, 'dist/cli.js'))]);
    const declared = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].sort();
    expect(declared).toEqual([...loaded].sort());
  });

  it('runs no script when installed from a tarball, and a clone still builds before its tests', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts['prepack']).toBe('npm run build');
    expect(pkg.scripts['pretest']).toBe('npm run build');
  });

  it('ships a LICENSE, every file README.md and docs/ link to, and every heading those links name', () => {
    const shipped = packedFiles();
    expect(shipped.has('LICENSE')).toBe(true);
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 mdclaim contributors\n/);
    let checked = 0;
    for (const doc of docFiles()) {
      expect(shipped.has(doc), `${doc} is not in the package`).toBe(true);
      for (const link of links(readFileSync(join(root, doc), 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? posix.normalize(posix.join(posix.dirname(doc), path)) : doc;
        expect(shipped.has(target), `${doc}: ${link} is not in the package`).toBe(true);
        if (anchor) expect(headingSlugs(readFileSync(join(root, target), 'utf8')).has(anchor), `${doc}: no heading for ${link}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('keeps the benchmarks, a lab notebook, in the repository and out of the package, and its links whole', () => {
    const shipped = packedFiles();
    expect(repositoryOnly()).toEqual(['docs/benchmarks.md', 'docs/scaling.svg']);
    for (const doc of repositoryOnly()) {
      expect(existsSync(join(root, doc)), `${doc} is not in the repository`).toBe(true);
      expect(shipped.has(doc), `${doc} is in the package`).toBe(false);
    }
    for (const link of links(readFileSync(join(root, 'docs/benchmarks.md'), 'utf8'))) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? posix.normalize(posix.join('docs', path)) : 'docs/benchmarks.md';
      expect(existsSync(join(root, target)), `docs/benchmarks.md: ${link} is not in the repository`).toBe(true);
      if (anchor) expect(headingSlugs(readFileSync(join(root, target), 'utf8')).has(anchor), `docs/benchmarks.md: no heading for ${link}`).toBe(true);
    }
  });

  it('would see a link to a file the package lacks, and to a heading a file lacks', () => {
    expect(links('[a](docs/none.md) [b](https://example.com) [c](#x)')).toEqual(['docs/none.md', '#x']);
    expect(headingSlugs('# The lock\n```sh\n# not a heading\n```\n## `paths lock`, `unlock`\n')).toEqual(new Set(['the-lock', 'paths-lock-unlock']));
  });
});

/** The relative links of a markdown text (not the ones with a scheme). */
function links(md: string): string[] {
  return [...md.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
}

/** GitHub's heading slugs, outside fenced code: lower case, punctuation dropped, spaces to dashes. */
function headingSlugs(md: string): Set<string> {
  const prose = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return new Set([...prose.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

describe('the README, as a newcomer meets it', () => {
  const runnerDoc = readFileSync(join(root, 'docs/runner.md'), 'utf8');
  const snippet = /## The library loop\n[\s\S]*?```js\n([\s\S]*?)```/.exec(runnerDoc)?.[1];

  it('says the library is ESM, when require() loads it, and how to run the loop from a fresh (CommonJS) project', () => {
    expect(readme).toMatch(/ES module/);
    expect(readme).toMatch(/`require\('mdclaim'\)` works on Node 20\.19\+ and 22\.12\+/);
    expect(runnerDoc).toMatch(/`\.mjs` file, or set `"type": "module"`/);
  });

  // The library loop as a user would paste it: a .mjs file in a fresh project, with a
  // stand-in `claude` on PATH: one that succeeds, and one during whose run the lease
  // lapses (a clock an hour on) and another worker takes the task over.
  it.each([
    ['marks the task done when the command succeeds', 'exit 0', /^- \[✅( \S+)?, agent-7\] Add the \/health endpoint \{backend\}$/m, 'done'],
    [
      'stops and writes nothing when the task is taken over while the command runs',
      `node --input-type=module -e "import { openBoard } from 'mdclaim'; await openBoard('tasks.md', { now: () => Date.now() + 3600000 }).claim(process.env.MDCLAIM_TASK_ID, { by: 'thief' })"`,
      /^- \[🟡, thief, [^\]]+\] Add the \/health endpoint \{backend\}$/m,
      'lost',
    ],
  ])('%s', async (_name, agent, line, outcome) => {
    expect(snippet).toBeDefined();
    const board = boardFile('## api\n- [ ] Add the /health endpoint {backend}\n');
    const project = dirname(board);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0' }));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules', 'mdclaim'));
    mkdirSync(join(project, 'bin'));
    writeFileSync(join(project, 'bin', 'claude'), `#!/bin/sh\n[ "$1" = -p ] && [ "$2" = "$MDCLAIM_TASK_TEXT" ] || exit 9\n${agent}\n`);
    chmodSync(join(project, 'bin', 'claude'), 0o755);
    writeFileSync(join(project, 'trigger.mjs'), snippet!);
    const child = track(spawn(process.execPath, ['trigger.mjs'], { cwd: project, env: { ...process.env, PATH: `${join(project, 'bin')}:${process.env['PATH']}` } }));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // It loops: once the task has ended, stop it as a service manager would.
    await until('the task to end', () => stderr.includes(`"event":"${outcome}"`));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(read(board)).toMatch(line);
    expect(stderr).toMatch(new RegExp(`outcome: '${outcome}'`));
  });

  it('runs the reaper from cron through the project, never through a bare npx', () => {
    const cron = readFileSync(join(root, 'examples/crontab'), 'utf8');
    for (const text of [readme, cron]) {
      expect(text).not.toMatch(/npx mdclaim reap/);
      expect(text).toMatch(/\.\/node_modules\/\.bin\/mdclaim reap/);
      expect(text).toMatch(/nvm/);
    }
  });
});
