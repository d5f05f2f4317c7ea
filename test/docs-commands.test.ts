import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, repositoryOnly, ROOT } from './helpers/packed.js';

// A project's `npm install mdclaim` puts no mdclaim on PATH: every command the
// docs show runs it as `npx mdclaim`, or from cron as ./node_modules/.bin/mdclaim.
// Inside single quotes (the command `run` or `lock` starts) it is the runner's
// to find: `run` puts its own bin first on its commands' PATH.

/** Each line of the docs' shell, console and cron blocks that calls a bare mdclaim, as `file:line: text`. */
function bareCalls(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const found: string[] = [];
  let lang: string | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence) {
      lang = lang === undefined ? fence[1]! : undefined;
      return;
    }
    if (lang === undefined || !['sh', 'console', 'bash', 'cron', 'crontab', ''].includes(lang)) return;
    const unquoted = line.replace(/'[^']*'/g, "''");
    for (const m of unquoted.matchAll(/(?<![\w./-])mdclaim\b(?![-.\w/])/g)) {
      if (!/(npx (--no-install )?|node_modules\/\.bin\/|install |mcp add |"command": ")$/.test(unquoted.slice(0, m.index))) {
        found.push(`${file}:${i + 1}: ${line}`);
        break;
      }
    }
  });
  return found;
}

describe("the docs' commands", () => {
  it('run mdclaim as a project install has it: npx mdclaim, or node_modules/.bin/mdclaim', () => {
    // The repository's own docs too: a reader copies from them as well.
    const docs = [...docFiles(), ...repositoryOnly().filter((f) => f.endsWith('.md'))];
    expect(docs.flatMap((f) => bareCalls(f))).toEqual([]);
  });

  it('would catch a bare call', () => {
    const text = ['```sh', 'while id=$(mdclaim next -q); do :; done', "npx mdclaim run -- sh -c 'mdclaim done x'", '```', 'mdclaim in prose', ''].join('\n');
    expect(bareCalls('scratch.md', text)).toEqual(['scratch.md:2: while id=$(mdclaim next -q); do :; done']);
  });
});
