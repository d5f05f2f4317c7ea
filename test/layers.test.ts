import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The house keeps its shape: data flows one way, and a module imports only
// from its own layer or one below it. The layers of today's directories, from
// the bottom:
//
//   0  errors.ts, builtins.ts      what every layer may use
//   1  format/                     scan a document, render a line: pure, no I/O
//   2  platform/                   one module per platform concern
//   3  storage/                    lock, read, write in place or replace, verify
//   4  board/, parse.ts            the board core (types, requests, the claimable rule, standing), the file board, the opener
//   5  pg/                         the PostgreSQL board
//   6  board/runner/, mcp/, watch/, doctor/  the runner, the MCP server, watch and doctor: faces of the board interface
//   7  cli/, cli.ts                argument handling, output, the one error→exit-code map
//   8  index.ts                    the package's API
//
// Type-only imports count too: a type from above ties a lower room to a higher one.

const SRC = resolve(__dirname, '../src');

const LAYERS: ReadonlyArray<readonly [number, (file: string) => boolean]> = [
  [8, (f) => f === 'index.ts'],
  [7, (f) => f.startsWith('cli/') || f === 'cli.ts'],
  [6, (f) => f.startsWith('board/runner/') || f.startsWith('mcp/') || f.startsWith('watch/') || f.startsWith('doctor/')],
  [5, (f) => f.startsWith('pg/')],
  [4, (f) => f.startsWith('board/') || f === 'parse.ts'],
  [3, (f) => f.startsWith('storage/')],
  [2, (f) => f.startsWith('platform/')],
  [1, (f) => f.startsWith('format/')],
  [0, (f) => f === 'errors.ts' || f === 'builtins.ts'],
];

/**
 * The arrows that run back up today, each with why it is still there; the
 * list only shrinks. The opener (board/open.ts) chooses a file or PostgreSQL
 * board from a path or URL, so it must know both: it belongs above both
 * boards, and lives in board/ until it has a room of its own there.
 */
const KNOWN_BACK_ARROWS: ReadonlySet<string> = new Set([
  'board/open.ts -> pg/url.ts',
  'board/open.ts -> pg/redact.ts',
  'board/open.ts -> pg/board.ts',
]);

export function layerOf(file: string): number {
  const hit = LAYERS.find(([, is]) => is(file));
  if (!hit) throw new Error(`${file} is in no layer: add it to the layers in test/layers.test.ts`);
  return hit[0];
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import of a module (static, re-export, dynamic; type-only too), as a path under src/. */
export function importsOf(path: string, text = readFileSync(path, 'utf8'), valuesOnly = false): string[] {
  const out: string[] = [];
  const specs = /(?:^|\n)\s*(?:import|export)(\s+type\b)?[^'"`;]*?\bfrom\s*'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;
  for (const m of text.matchAll(specs)) {
    const spec = m[2] ?? m[3]!;
    if (!spec.startsWith('.') || (valuesOnly && m[1] !== undefined)) continue;
    out.push(relative(SRC, resolve(dirname(path), spec)).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** The circles of modules that import each other's values (a type-only import runs nothing), each as its files. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: a component of more than one module is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const c: string[] = [];
    let w: string;
    do c.push((w = stack.pop()!));
    while (w !== v);
    if (c.length > 1) out.push(c.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Every import that goes from a lower layer to a higher one, as `from -> to (layer a -> b)`. */
export function backArrows(files: readonly string[]): string[] {
  const bad: string[] = [];
  for (const path of files) {
    const from = relative(SRC, path);
    for (const to of importsOf(path)) {
      const a = layerOf(from);
      const b = layerOf(to);
      if (b > a && !KNOWN_BACK_ARROWS.has(`${from} -> ${to}`)) bad.push(`${from} -> ${to} (layer ${a} -> ${b})`);
    }
  }
  return bad;
}

describe('the layers', () => {
  it('put every source file in a layer', () => {
    for (const path of sources(SRC)) expect(() => layerOf(relative(SRC, path))).not.toThrow();
  });

  it('have no import from a lower layer to a higher one', () => {
    expect(backArrows(sources(SRC))).toEqual([]);
  });

  it('catch an import that runs back up, static, type-only or dynamic', () => {
    // A check proven able to fail: a format module that reached up into the board, three ways.
    const fake = join(SRC, 'format/fake.ts');
    const text = "import { claimNext } from '../board/claim.js';\nimport type { TaskBoard } from '../board/types.js';\nconst pg = await import('../pg/board.js');\n";
    const found = importsOf(fake, text).map((to) => `${to}:${layerOf(to) > layerOf('format/fake.ts')}`);
    expect(found).toEqual(['board/claim.ts:true', 'board/types.ts:true', 'pg/board.ts:true']);
  });

  it('have no circle of modules importing each other, but through type-only imports', () => {
    const graph = new Map(sources(SRC).map((path) => [relative(SRC, path), importsOf(path, undefined, true)] as const));
    expect(circles(graph)).toEqual([]);
    // And the check finds one: two modules that import each other, a third outside.
    expect(circles(new Map([['cli/commands.ts', ['cli/run.ts']], ['cli/run.ts', ['cli/commands.ts', 'cli/exit.ts']], ['cli/exit.ts', []]]))).toEqual([['cli/commands.ts', 'cli/run.ts']]);
  });

  it('name each arrow still allowed back up, and only arrows that exist', () => {
    const all = new Set(sources(SRC).flatMap((path) => importsOf(path).map((to) => `${relative(SRC, path)} -> ${to}`)));
    for (const arrow of KNOWN_BACK_ARROWS) expect(all, arrow).toContain(arrow);
  });
});
