import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
  for (const m of src.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm)) {
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

  it('ships a LICENSE and every file the README links to, and every anchor it links to exists', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    const shipped = new Set((JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
    expect(shipped.has('LICENSE')).toBe(true);
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 mdclaim contributors\n/);
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(0);
    // GitHub's heading slugs: lower case, punctuation dropped, spaces to dashes.
    const anchors = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
    for (const link of links) {
      const [path, anchor] = link.split('#');
      if (path) expect(shipped.has(path), `${link} is not in the package`).toBe(true);
      if (anchor && !path) expect(anchors.has(anchor), `no heading for #${anchor}`).toBe(true);
    }
  });
});

describe('the README, as a newcomer meets it', () => {
  const snippet = /### From a polling trigger\n[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];

  it('says the library is ESM, and how to use it from a fresh (CommonJS) project', () => {
    expect(readme).toMatch(/`\.mjs` file, or set `"type": "module"`/);
  });

  // The snippet as a user would paste it: a .mjs file in a fresh project, with a doTheWork
  // during which the lease lapses (a clock an hour on) and another worker takes the task over.
  it.each([
    ['the work fails after the takeover', "throw new Error('the build broke');"],
    ['the work succeeds after the takeover', "return 'abc1234';"],
  ])('handles the CONFLICT when %s', (_name, ending) => {
    expect(snippet).toBeDefined();
    const board = boardFile('## api\n- [ ] Add the /health endpoint {backend}\n');
    const project = dirname(board);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0' }));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(root, join(project, 'node_modules', 'mdclaim'));
    const doTheWork = `
async function doTheWork(task) {
  await openBoard('tasks.md', { now: () => Date.now() + 3_600_000 }).claim(task.id, { by: 'thief' });
  ${ending}
}
`;
    writeFileSync(join(project, 'trigger.mjs'), snippet + doTheWork);
    const r = spawnSync(process.execPath, ['trigger.mjs'], { cwd: project, encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toMatch(/^lost \S+: .*\bthief\b.*\n$/);
    expect(r.status).toBe(0);
    expect(read(board)).toMatch(/^- \[🟡, thief, [^\]]+\] Add the \/health endpoint \{backend\}$/m);
    expect(existsSync(join(project, 'tasks.md'))).toBe(true);
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
