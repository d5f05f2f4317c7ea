import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// What npm packs does not change while a test file runs (dist/ is built before the run): npm is asked once a file.
let files: Set<string> | undefined;
let tarball: Buffer | undefined;

/** The files `npm pack` would publish, as paths inside the package. */
export function packedFiles(): Set<string> {
  if (files) return files;
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  return (files = new Set((JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path)));
}

/** The tarball `npm pack` makes, packed once a file. */
function packed(): Buffer {
  if (tarball) return tarball;
  const dir = mkdtempSync(join(tmpdir(), 'mdclaim-pack-'));
  try {
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    return (tarball = readFileSync(join(dir, (JSON.parse(out) as [{ filename: string }])[0].filename)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh project with the packed tarball installed as a user's npm would
 * leave it (node_modules/mdclaim holds exactly the published files), and
 * beside it only the named packages of this checkout, linked: no registry.
 * dist/ is the one `npm test` built; packing with --ignore-scripts keeps a
 * rebuild from pulling it from under tests running at the same time.
 */
export function installPacked(linked: readonly string[], type: 'module' | 'commonjs' = 'module'): { project: string; remove: () => void } {
  const project = mkdtempSync(join(tmpdir(), 'mdclaim-packed-'));
  const pkg = join(project, 'node_modules', 'mdclaim');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['-xzf', '-', '-C', pkg, '--strip-components=1'], { input: packed() });
  for (const name of linked) {
    const at = join(project, 'node_modules', name);
    mkdirSync(join(at, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), at);
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true, type }));
  return { project, remove: () => rmSync(project, { recursive: true, force: true }) };
}

/** Every markdown file the package documents itself in: README.md and docs/*.md but those package.json's `files` leaves out, as paths from the root. */
export function docFiles(): string[] {
  const left = new Set(repositoryOnly());
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)].filter((f) => !left.has(f));
}

/** The files of docs/ kept in the repository and out of the package (`"!docs/…"` in package.json's `files`). */
export function repositoryOnly(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  return pkg.files.filter((f) => f.startsWith('!docs/')).map((f) => f.slice(1));
}
