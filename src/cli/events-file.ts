import { closeSync, openSync, writeSync } from 'node:fs';
import type { RunEvent } from '../runner/events.js';
import { errorReport, MdclaimError } from '../errors.js';

/**
 * `run --events FILE`: each event one JSON line, appended with one write so
 * a reader never sees half a line. A file that stops taking writes (a full
 * disk, `ulimit -f`) is said once, as one `error[IO]` line, and the run goes
 * on without events: the claims matter more than the record of them.
 */
export class EventsFile {
  private failed = false;

  private constructor(private readonly fd: number, private readonly path: string, private readonly warn: (line: string) => void) {}

  /** Open for appending before anything is claimed, so a path that cannot be opened stops the run before it starts. */
  static open(path: string, warn: (line: string) => void): EventsFile {
    try {
      return new EventsFile(openSync(path, 'a'), path, warn);
    } catch (err) {
      throw new MdclaimError('IO', `cannot open --events ${path}: ${(err as Error).message}`, { file: path, cause: err });
    }
  }

  write(e: RunEvent): void {
    if (this.failed) return;
    const line = Buffer.from(JSON.stringify(e) + '\n');
    try {
      let off = 0;
      while (off < line.length) off += writeSync(this.fd, line, off, line.length - off);
    } catch (err) {
      this.failed = true;
      this.warn(errorReport(new MdclaimError('IO', `cannot write --events ${this.path}: ${(err as Error).message}; the run goes on without events`)).line);
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // a close that fails loses nothing more: every write has been made or reported
    }
  }
}
