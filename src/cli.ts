#!/usr/bin/env node
import { MdclaimError } from './errors.js';
import { EXIT, exitCodeFor } from './cli/exit.js';
import { run } from './cli/run.js';

const argv = process.argv.slice(2);
const end = argv.indexOf('--');
const json = (end < 0 ? argv : argv.slice(0, end)).includes('--json');

// A reader that leaves early (`mdclaim list | head -1`) is no failure: stop
// quietly with the status sh shows for a writer killed by SIGPIPE. A closed
// stderr loses only the message, not the outcome, so its exit status stands.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(EXIT.BROKEN_PIPE);
});
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});
// Results are written in chunks: one write per line of a 700,000-task list costs more than the list.
let pending = '';
const flush = () => {
  if (pending !== '') process.stdout.write(pending);
  pending = '';
};
const io = {
  out: (line: string) => {
    pending += line + '\n';
    if (pending.length >= 1 << 16) flush();
  },
  err: (line: string) => {
    flush();
    process.stderr.write(line + '\n');
  },
};

// The one catch: every failure becomes one line on stderr and one exit status.
run(argv, io).then(
  (code) => {
    flush();
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
    flush();
    process.exitCode = exitCodeFor(code);
  },
);
