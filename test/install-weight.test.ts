import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/packed.js';

interface Entry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Entry> };

/** Where Node would find `name` from the package at `from` (a lock path): its own node_modules, then each one above. */
function resolveIn(from: string, name: string): string | undefined {
  for (let at = from; ; at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '') {
    const path = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (lock.packages[path]) return path;
    if (!at) return undefined;
  }
}

/** Whether npm installs the package on this machine (a platform's prebuilt binary only on its platform). */
const fits = (e: Entry) => (!e.os || e.os.includes(process.platform)) && (!e.cpu || e.cpu.includes(process.arch));

/** The packages `npm install mdclaim` puts in a project here, mdclaim included: its dependencies and theirs, as the lock file resolves them. */
function installed(): Set<string> {
  const found = new Set<string>();
  const visit = (from: string, entry: Entry): void => {
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      const path = resolveIn(from, name);
      if (!path || found.has(path) || !fits(lock.packages[path]!)) continue;
      found.add(path);
      visit(path, lock.packages[path]!);
    }
  };
  visit('', lock.packages['']!);
  return new Set(['mdclaim', ...[...found].map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length))]);
}

describe('what installing mdclaim brings', () => {
  it('is at most 30 packages, none of them the MCP SDK (its stdio server is bundled into dist/mcp/sdk.cjs)', () => {
    const names = installed();
    expect(names.size, [...names].join(' ')).toBeLessThanOrEqual(30);
    expect([...names].filter((n) => /^@modelcontextprotocol\/|^(express|hono|ajv|zod)$/.test(n))).toEqual([]);
    // The count sees what it should: pg brings its own dependencies, koffi this platform's binary.
    expect(names).toContain('pg-protocol');
    expect(names.size).toBeGreaterThan(10);
  });

  it('has each dependency and what it is for in docs/compatibility.md', () => {
    const doc = readFileSync(join(ROOT, 'docs/compatibility.md'), 'utf8');
    const table = /## What an install brings\n([\s\S]*?)(?=\n## )/.exec(doc)?.[1] ?? '';
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Entry;
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) expect(table, name).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
  });
});
