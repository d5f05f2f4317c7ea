import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLAGS } from '../src/cli/args.js';
import { COMMANDS } from '../src/cli/help.js';

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
});
