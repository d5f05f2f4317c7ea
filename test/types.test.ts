import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docFiles, installPacked, ROOT } from './helpers/packed.js';

/** The ```ts blocks of a markdown file: each is a whole module a user may paste. */
function tsSnippets(doc: string): string[] {
  return [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
} as const;

/** TypeScript 5, and the latest release (6 and later no longer load every installed @types package: `types` defaults to []). */
const COMPILERS = { 'TypeScript 5': 'typescript5', 'the latest TypeScript': 'typescript' } as const;
type Compiler = keyof typeof COMPILERS;

// The published package, with nothing beside it but a compiler and Node's types, in a project set up as the README says ("type": "module").
let installed: ReturnType<typeof installPacked>;
beforeAll(() => {
  installed = installPacked([...Object.values(COMPILERS), '@types/node']);
});
afterAll(() => installed?.remove());

/** The tsconfig.json docs/api.md gives a new project. */
const documented = (): Record<string, unknown> => {
  const block = /In a new project[\s\S]*?```json\n([\s\S]*?)^```$/m.exec(readFileSync(join(ROOT, 'docs/api.md'), 'utf8'));
  return (JSON.parse(block![1]!) as { compilerOptions: Record<string, unknown> }).compilerOptions;
};

function compile(files: Record<string, string>, resolution: keyof typeof RESOLUTIONS | 'documented', compiler: Compiler): { status: number | null; output: string } {
  const dir = join(installed.project, `check-${resolution}-${Object.keys(files).length}-${Math.random().toString(16).slice(2)}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // No `types`: the package's declarations must bring in Node's types themselves.
  const given = resolution === 'documented' ? documented() : { ...RESOLUTIONS[resolution], target: 'es2022', strict: true };
  const compilerOptions = { ...given, skipLibCheck: false, noEmit: true };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
  const tsc = join(installed.project, 'node_modules', COMPILERS[compiler], 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: installed.project, encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe('the TypeScript in README.md and docs/, against the packed package', () => {
  const snippets: Record<string, string> = {};
  for (const doc of docFiles()) {
    tsSnippets(doc).forEach((text, i) => (snippets[`${doc.replace(/[/.]/g, '_')}_${i + 1}.ts`] = `// ${doc}, \`\`\`ts block ${i + 1}\n${text}`));
  }

  it('tells a fresh npm init project (CommonJS) what it needs: "type": "module", the compiler and Node\'s types, and where the tsconfig is', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('`npm pkg set type=module`');
    expect(readme).toContain('`npm install -D typescript @types/node`');
    expect(readme).toContain('(docs/api.md#types)');
  });

  it('has snippets to compile: the README and the API reference', () => {
    expect(Object.keys(snippets).some((f) => f.startsWith('README'))).toBe(true);
    expect(Object.keys(snippets).filter((f) => f.startsWith('docs_api')).length).toBeGreaterThanOrEqual(3);
  });

  // Two files that must not compile, beside the snippets in the node16 compile: one compiler run answers both
  // that the snippets compile and that the compiler would see what is wrong (each file is a module of its own).
  const PROBES: Record<string, string> = { 'wrong.ts': "import { openBoard } from 'mdclaim';\nawait openBoard('tasks.md').lockPath('x', { by: 'me' });\n", 'missing.ts': "import type { Pool } from 'pg';\nexport type P = Pool;\n" };
  const withProbes = new Map<Compiler, ReturnType<typeof compile>>();
  const node16 = (compiler: Compiler) => withProbes.get(compiler) ?? withProbes.set(compiler, compile({ ...snippets, ...PROBES }, 'node16', compiler)).get(compiler)!;
  /** The compiler's output, one diagnostic (its first line and those indented under it) a string. */
  const diagnostics = (output: string) => output.split(/\n(?=\S)/).filter((d) => d.trim() !== '');
  const aboutProbes = (d: string) => /^[^\n(]*[\\/](wrong|missing)\.ts\(\d+,\d+\): error TS/.test(d);

  const cases = (Object.keys(COMPILERS) as Compiler[]).flatMap((compiler) => (Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]).map((resolution) => [compiler, resolution] as const));
  it.each(cases)('compiles with %s under --strict, skipLibCheck off, no types setting, %s resolution', (compiler, resolution) => {
    if (resolution === 'node16') {
      // Nothing said but about the probes, and something said about them.
      const r = node16(compiler);
      expect(diagnostics(r.output).filter((d) => !aboutProbes(d))).toEqual([]);
      expect(diagnostics(r.output).length).toBeGreaterThan(0);
      return;
    }
    const r = compile(snippets, resolution, compiler);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(Object.keys(COMPILERS) as Compiler[])('compiles with %s under the tsconfig.json docs/api.md gives a new project', (compiler) => {
    expect(documented()).not.toHaveProperty('types');
    const r = compile(snippets, 'documented', compiler);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(Object.keys(COMPILERS) as Compiler[])('with %s, would see a call the types do not offer, and a declaration that needs a package not installed', (compiler) => {
    const r = node16(compiler);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/wrong\.ts.*TS2551|wrong\.ts.*TS2339/);
    expect(r.output).toMatch(/missing\.ts.*TS2307/);
  });
});
