import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
// TypeScript 5's JavaScript API: the `typescript` package (7, native) has no parser to call in-process.
import ts from 'typescript5';
import { describe, expect, it } from 'vitest';

// Every `error[CODE]: message` line is made by errorReport (src/errors.ts), so
// the CLI, an MCP tool error and a warning say a failure the same way: one
// line, its code, newlines folded. A string or template in code that starts
// `error[` builds one by hand.

const SRC = resolve(__dirname, '../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The strings and templates of a module that begin an `error[…]` line, as `file:line: text`. */
export function handMadeErrorLines(path: string, text = readFileSync(path, 'utf8')): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const head = ts.isStringLiteralLike(node) ? node.text : ts.isTemplateExpression(node) ? node.head.text : undefined;
    if (head !== undefined && /^error\[/.test(head)) found.push(`${relative(SRC, path)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 60)}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('error lines', () => {
  it('are all made by errorReport: no module but src/errors.ts writes one by hand', () => {
    expect(sources(SRC).filter((p) => relative(SRC, p) !== 'errors.ts').flatMap((p) => handMadeErrorLines(p))).toEqual([]);
  });

  it('would see one made by hand, in a string or a template, but not in help text that quotes the form', () => {
    const text = ["io.err(`error[CONFLICT]: ${c.message}`);", "warn('error[IO]: cannot write');", "const help = 'a refusal is one line, error[CODE]: message';"].join('\n');
    expect(handMadeErrorLines(join(SRC, 'cli/fake.ts'), text).map((l) => l.split(': ')[0])).toEqual(['cli/fake.ts:1', 'cli/fake.ts:2']);
  });
});
