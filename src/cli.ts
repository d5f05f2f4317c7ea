#!/usr/bin/env node
import { MdclaimError } from './errors.js';
import { exitCodeFor } from './cli/exit.js';
import { run } from './cli/run.js';

// Only mdclaim's own options: the words after `--` belong to the command `lock` runs.
const argv = process.argv.slice(2);
const json = (argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv).includes('--json');
const io = {
  out: (line: string) => process.stdout.write(line + '\n'),
  err: (line: string) => process.stderr.write(line + '\n'),
};

// The one catch: every failure becomes one line on stderr and one exit status.
run(argv, io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const known = err instanceof MdclaimError;
    const code = known ? err.code : 'INTERNAL';
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ');
    io.err(`error[${code}]: ${message}`);
    if (json) {
      const holder = known && err.holder !== undefined ? { holder: err.holder } : {};
      io.out(JSON.stringify({ error: { code, message, ...holder } }));
    }
    process.exitCode = exitCodeFor(code);
  },
);
