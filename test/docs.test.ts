import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLAGS } from '../src/cli/args.js';
import { COMMANDS } from '../src/cli/help.js';
import { END, renderReference, START, withReference } from '../scripts/docs.mjs';

const cli = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8');

describe('docs/cli.md, against the CLI it documents', () => {
  it('has a row for every command', () => {
    const rows = [...cli.matchAll(/^\| `([a-z]+(?: [a-z]+)?)[ `]/gm)].map((m) => m[1]!);
    for (const command of Object.keys(COMMANDS)) expect(rows, command).toContain(command);
  });

  it('describes every flag', () => {
    for (const [name, spec] of Object.entries(FLAGS)) {
      expect(cli, `--${name}`).toContain(`--${name}`);
      if (spec.short) expect(cli, `-${spec.short}`).toContain(`\`-${spec.short}\``);
    }
  });

  it('holds the reference npm run docs makes from the command and option tables, as they are now', async () => {
    expect(cli.includes(START) && cli.includes(END), 'docs/cli.md has lost its reference markers').toBe(true);
    expect(cli.split('\n'), 'the reference in docs/cli.md is stale: run npm run docs').toEqual((await withReference(cli)).split('\n'));
  });

  it('would see a stale reference, and keep the prose around it', async () => {
    const stale = cli.replace('| print only the task id |', '| print the id |');
    expect(stale).not.toBe(cli);
    expect(await withReference(stale)).toBe(cli);
    const prose = `# Page\n\nBefore.\n\n${START}\nold\n${END}\n\nAfter.\n`;
    expect(await withReference(prose)).toBe(`# Page\n\nBefore.\n\n${await renderReference()}\n\nAfter.\n`);
  });
});
