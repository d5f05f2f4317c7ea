import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
// TypeScript 5's JavaScript API: the `typescript` package (7, native) has no parser to call in-process.
import ts from 'typescript5';
import { describe, expect, it } from 'vitest';

// The house keeps its shape: data flows one way, and a module imports only
// from its own room or a layer below it. The rooms, from the bottom:
//
//   0  errors.ts, builtins.ts      what every layer may use
//   1  format/                     scan a document, render a line: pure, no I/O
//   2  platform/                   one module per platform concern
//   3  storage/                    lock, read, write in place or replace, verify
//   4  board/, parse.ts            the board core: types, requests, the claimable rule, standing, the document walk
//   5  file/ | pg/                 the two boards, side by side: neither imports the other
//   6  open.ts, open-file.ts       the opener: a file or PostgreSQL board from a path or URL
//   7  runner/                     the runner: run commands on claimed tasks, keep their claims alive
//   8  mcp/ | watch/ | doctor/     the other faces of the board interface (an MCP session's claims beat as the runner's do)
//   9  cli/, cli.ts                argument handling, output, the one error→exit-code map
//  10  index.ts                    the package's API
//
// Rooms of one layer (`|`) import nothing of each other. Type-only imports
// count too: a type from above ties a lower room to a higher one.

const SRC = resolve(__dirname, '../src');

/** Each room: its layer, its name, and which files are in it. */
const ROOMS: ReadonlyArray<readonly [number, string, (file: string) => boolean]> = [
  [10, 'index', (f) => f === 'index.ts'],
  [9, 'cli', (f) => f.startsWith('cli/') || f === 'cli.ts'],
  [8, 'mcp', (f) => f.startsWith('mcp/')],
  [8, 'watch', (f) => f.startsWith('watch/')],
  [8, 'doctor', (f) => f.startsWith('doctor/')],
  [7, 'runner', (f) => f.startsWith('runner/')],
  [6, 'open', (f) => f === 'open.ts' || f === 'open-file.ts'],
  [5, 'file', (f) => f.startsWith('file/')],
  [5, 'pg', (f) => f.startsWith('pg/')],
  [4, 'board', (f) => f.startsWith('board/') || f === 'parse.ts'],
  [3, 'storage', (f) => f.startsWith('storage/')],
  [2, 'platform', (f) => f.startsWith('platform/')],
  [1, 'format', (f) => f.startsWith('format/')],
  [0, 'base', (f) => f === 'errors.ts' || f === 'builtins.ts'],
];

function roomOf(file: string): readonly [number, string] {
  const hit = ROOMS.find(([, , is]) => is(file));
  if (!hit) throw new Error(`${file} is in no room: add it to the rooms in test/layers.test.ts`);
  return [hit[0], hit[1]];
}

export function layerOf(file: string): number {
  return roomOf(file)[0];
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every relative import of a module, as a path under src/: static imports,
 * re-exports, side-effect imports, type-only ones and `import()` with a
 * literal, read by TypeScript's own parser so no quoting or spacing hides
 * one. With `valuesOnly`, a type-only import or re-export is left out (it
 * runs nothing).
 */
export function importsOf(path: string, text?: string, valuesOnly = false): string[] {
  const all = text === undefined ? (parsed.get(path) ?? parsed.set(path, specifiers(path, readFileSync(path, 'utf8'))).get(path)!) : specifiers(path, text);
  return all.filter((i) => !(valuesOnly && i.typeOnly)).map((i) => i.to);
}

/** Each module's relative imports, parsed once for the whole file's checks. */
const parsed = new Map<string, Array<{ to: string; typeOnly: boolean }>>();

function specifiers(path: string, text: string): Array<{ to: string; typeOnly: boolean }> {
  const out: Array<{ to: string; typeOnly: boolean }> = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (spec === undefined || !ts.isStringLiteralLike(spec) || !spec.text.startsWith('.')) return;
    out.push({ to: relative(SRC, resolve(dirname(path), spec.text)).replace(/\.js$/, '.ts'), typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal as ts.Expression, true);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], false);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
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

/** Does an import from `from` to `to` run up a layer, or across to another room of the same layer? */
export function crosses(from: string, to: string): boolean {
  const [a, roomA] = roomOf(from);
  const [b, roomB] = roomOf(to);
  return b > a || (b === a && roomA !== roomB);
}

/** Every import that goes up a layer or across to a neighbouring room, as `from -> to (room a -> b)`. */
export function backArrows(files: readonly string[]): string[] {
  const bad: string[] = [];
  for (const path of files) {
    const from = relative(SRC, path);
    for (const to of importsOf(path)) {
      if (crosses(from, to)) bad.push(`${from} -> ${to} (${roomOf(from).join(' ')} -> ${roomOf(to).join(' ')})`);
    }
  }
  return bad;
}

describe('the layers', () => {
  it('put every source file in a room', () => {
    for (const path of sources(SRC)) expect(() => layerOf(relative(SRC, path))).not.toThrow();
  });

  it('have no import from a lower layer to a higher one, nor between the rooms of one layer', () => {
    expect(backArrows(sources(SRC))).toEqual([]);
  });

  it('catch an import that runs back up, static, type-only or dynamic', () => {
    // A check proven able to fail: a format module that reached up into the board, three ways.
    const fake = join(SRC, 'format/fake.ts');
    const text = "import { claimNext } from '../file/claim.js';\nimport type { TaskBoard } from '../board/types.js';\nconst pg = await import('../pg/board.js');\n";
    const found = importsOf(fake, text).map((to) => `${to}:${crosses('format/fake.ts', to)}`);
    expect(found).toEqual(['file/claim.ts:true', 'board/types.ts:true', 'pg/board.ts:true']);
  });

  it('catch an import whatever its quotes, spacing or form: side-effect, re-export, template, type', () => {
    const fake = join(SRC, 'format/fake.ts');
    const text = [
      'import { openBoard } from "../open.js";',
      "import '../open.js';",
      'const o = await import(`../open.js`);',
      "import type {\n  TaskBoard,\n} from\n  '../board/types.js';",
      'export * from "../file/board.js";',
      "export type { Task } from '../board/types.js';",
      "import x = require('../pg/url.js');",
      "type B = import('../runner/run.js').RunOptions;",
      'const later = import(/* lazily */ "../cli/run.js");',
      // Not imports: a module name in a string, a comment, or a computed import.
      "const s = \"import '../open.js'\"; // import '../open.js'",
      'const d = await import(`../${name}.js`);',
    ].join('\n');
    expect(importsOf(fake, text)).toEqual(['open.ts', 'open.ts', 'open.ts', 'board/types.ts', 'file/board.ts', 'board/types.ts', 'pg/url.ts', 'runner/run.ts', 'cli/run.ts']);
    // Type-only ones run nothing: they are left out of the circles' graph.
    expect(importsOf(fake, text, true)).toEqual(['open.ts', 'open.ts', 'open.ts', 'file/board.ts', 'pg/url.ts', 'cli/run.ts']);
  });

  it('catch an import between the two boards, or from the core or a board up to the opener', () => {
    const arrows = [
      ['pg/split.ts', 'file/claim.ts', true],
      ['file/board.ts', 'pg/url.ts', true],
      ['board/types.ts', 'open.ts', true],
      ['pg/board.ts', 'open.ts', true],
      ['pg/board.ts', 'board/requests.ts', false],
      ['file/board.ts', 'file/claim.ts', false],
      ['open.ts', 'pg/board.ts', false],
      ['runner/run.ts', 'board/types.ts', false],
    ] as const;
    for (const [from, to, crossing] of arrows) expect(crosses(from, to), `${from} -> ${to}`).toBe(crossing);
  });

  it('have no circle of modules importing each other, but through type-only imports', () => {
    const graph = new Map(sources(SRC).map((path) => [relative(SRC, path), importsOf(path, undefined, true)] as const));
    expect(circles(graph)).toEqual([]);
    // And the check finds one: two modules that import each other, a third outside.
    expect(circles(new Map([['cli/commands.ts', ['cli/run.ts']], ['cli/run.ts', ['cli/commands.ts', 'cli/exit.ts']], ['cli/exit.ts', []]]))).toEqual([['cli/commands.ts', 'cli/run.ts']]);
  });
});
