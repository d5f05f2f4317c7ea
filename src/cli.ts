#!/usr/bin/env node
import { errorReport } from './errors.js';
import { exitCodeFor } from './cli/exit.js';
import { run } from './cli/run.js';
import { printJson } from './cli/output.js';
import { Output } from './cli/sink.js';
import { printable, printableLines } from './format/printable.js';
import { isTerminal } from './builtins.js';
import { hidePasswordsFromTitle } from './cli/title.js';

const argv = process.argv.slice(2);
hidePasswordsFromTitle(argv);
const end = argv.indexOf('--');
const json = (end < 0 ? argv : argv.slice(0, end)).includes('--json');

// Output goes straight to the descriptors: the first touch of process.stdout
// loads Node's stream machinery, about 5 ms of a fresh process here, more
// than most calls spend on their board. Results are written in chunks: one
// write per line of a 700,000-task list costs more than the list.
const out = new Output(1, () => process.stdout);
const err = new Output(2, () => process.stderr);
let pending = '';
/** Is stderr a terminal? Asked at the first progress line. */
let terminal: boolean | undefined;
const flush = () => {
  if (pending !== '') out.write(pending);
  pending = '';
};
const io = {
  // Results quote the board (task text, holders, reasons), which others edit: never a control character raw.
  out: (line: string) => {
    pending += printableLines(line) + '\n';
    if (pending.length >= 1 << 16) flush();
  },
  err: (line: string) => {
    flush();
    // A message may quote a board's text or an argument: never a control character raw.
    err.write(printable(line) + '\n');
  },
  raw: (data: Uint8Array) => {
    flush();
    out.write(data);
  },
  progress: (text: string) => {
    terminal ??= isTerminal(2);
    if (!terminal) return;
    flush();
    err.write(`\r\x1b[K${text}`);
  },
};

// The one catch: every failure becomes one line on stderr and one exit status.
run(argv, io).then(
  (code) => {
    flush();
    process.exitCode = code;
  },
  (err: unknown) => {
    const { code, message, holder, line } = errorReport(err);
    io.err(line);
    if (json) printJson(io, { error: { code, message, ...(holder === undefined ? {} : { holder }) } });
    flush();
    process.exitCode = exitCodeFor(code);
  },
);
