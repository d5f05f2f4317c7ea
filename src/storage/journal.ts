import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, lstatSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';

// A file board's history: one JSON line per event in `<board>.history.jsonl`
// beside it, appended under the board's exclusive lock right after the
// board's own write (FileStore.update). The board is written first, so a
// crash between the two loses at most that write's lines and never records a
// change the board does not show. What keeps lines whole is the board's
// lock: it serialises mdclaim's appenders (PIPE_BUF's promise is for pipes,
// not files). Each append is besides one write(2) of whole lines on an
// O_APPEND descriptor, so it lands at the end, never over another line.

/** The journal of the board at `file` (its real path: every name of one board shares one journal). */
export function journalOf(file: string): string {
  return `${file}.history.jsonl`;
}

/** The journal, once it holds this many bytes, becomes `<journal>.1` (the older `.1` dropped) and a new one starts. */
export const JOURNAL_CAP = 8 * 1024 * 1024;

/** For the crash test alone (test/history-crash.test.ts): MDCLAIM_TEST_KILL_BEFORE_JOURNAL=N SIGKILLs this process between its Nth journalled board write and that write's journal lines. */
const KILL_AT = Number(process.env['MDCLAIM_TEST_KILL_BEFORE_JOURNAL'] ?? 0);
let journalled = 0;

/** Between a board write and its journal lines: the crash test's SIGKILL, when asked for (never otherwise). */
function crashPoint(): void {
  if (KILL_AT > 0 && ++journalled === KILL_AT) process.kill(process.pid, 'SIGKILL');
}

/**
 * Append `lines` (JSON, no line breaks in them) to the journal at `path`
 * when it exists: a board keeps a history only when its journal is there
 * (init makes it; `touch` starts one; removing it stops it). Returns null, or
 * why the lines were not written: the caller warns, and its change stands.
 * `durable`: fdatasync them too.
 */
export function appendJournal(path: string, lines: readonly string[], cap = JOURNAL_CAP, durable = false): string | null {
  if (lines.length === 0) return null;
  const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
  let fd: number;
  try {
    // NONBLOCK: a FIFO put in its place would wait for a reader; it opens at once, and fstat then refuses it.
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return why(err);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return 'not a regular file';
    let size = st.size;
    if (size > 0 && size + bytes.length > cap) {
      // Under the board's lock: no other mdclaim appender can write to the old name meanwhile.
      closeSync(fd);
      fd = -1;
      renameSync(path, `${path}.1`);
      fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, st.mode & 0o777);
      size = 0;
    }
    // One write(2) of the whole buffer: a short write of a regular file means a full disk or a size limit.
    const n = writeSync(fd, bytes, 0, bytes.length);
    if (n === bytes.length) {
      // A durable board's journal is on disk before the change returns, as the board is.
      if (durable) fdatasyncSync(fd);
      return null;
    }
    // A part of a line is taken back, so the next append starts a line of its own.
    ftruncateSync(fd, size);
    return `wrote ${n} of ${bytes.length} bytes`;
  } catch (err) {
    return why(err);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * After a board's write, under its lock: its lines in the journal of the
 * board at `file`, made only where it keeps one, or a warning that they are
 * lost. Nothing here throws: the board is written, and the change stands.
 */
export function recordChange(file: string, make: () => readonly string[], o: { durable: boolean; warn?: (message: string) => void }): void {
  const journal = journalOf(file);
  if (!keepsJournal(journal)) return;
  let lines: readonly string[] = [];
  let failed: string | null;
  try {
    lines = make();
    if (lines.length === 0) return;
    crashPoint();
    failed = appendJournal(journal, lines, JOURNAL_CAP, o.durable);
  } catch (err) {
    failed = err instanceof Error ? err.message : String(err);
  }
  if (failed === null) return;
  try {
    (o.warn ?? warnOnStderr)(`${journal}: ${failed}; the change to the board stands, its history line${lines.length === 1 ? ' is' : 's are'} lost`);
  } catch {
    // A warning that cannot be given (stderr closed, a callback that throws) fails nothing either.
  }
}

function warnOnStderr(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

/** Is something at the journal's path (a journal, or what a warning will name)? One stat, no exception when there is nothing. */
function keepsJournal(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** Make an empty journal at `path`, where none is: the board keeps its history from now on. */
export function startJournal(path: string): void {
  closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o644));
}

/** Every line the journal at `path` keeps, oldest first: its rotated part, then itself ([] when there is none). */
export function readJournal(path: string): string[] {
  const out: string[] = [];
  for (const p of [`${path}.1`, path]) {
    let text: string;
    try {
      text = readFileSync(p, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    for (const l of text.split('\n')) if (l !== '') out.push(l);
  }
  return out;
}

function why(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code} ${e.message.replace(/^[A-Z]+: /, '')}` : String(err);
}
