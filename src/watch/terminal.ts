import { writeSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';
import { emitKeypressEvents } from '../builtins.js';

// The full screen: the alternate screen, a hidden cursor and raw keys while
// open; everything put back on close, also when the process ends another way.

const ENTER = '\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J';
const LEAVE = '\x1b[0m\x1b[?25h\x1b[?1049l';

export interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
}

export class Terminal {
  private opened = false;
  private readonly restoreAtExit = () => this.close();

  constructor(private readonly output: WriteStream, private readonly input: ReadStream, private readonly fd = 1) {}

  get columns(): number {
    return this.output.columns || 80;
  }

  get rows(): number {
    return this.output.rows || 24;
  }

  open(onKey: (key: Key) => void, onResize: () => void): void {
    this.opened = true;
    // Whatever ends the process (an exit, an uncaught error) leaves the terminal as it found it.
    process.once('exit', this.restoreAtExit);
    writeAll(this.fd, ENTER);
    emitKeypressEvents(this.input);
    this.input.setRawMode(true);
    this.input.on('keypress', (_text: string | undefined, key: Key | undefined) => onKey(key ?? {}));
    this.input.resume();
    this.output.on('resize', onResize);
  }

  /** Paint the lines over the last screen, each line cleared to its end: no blank flash between frames. Throws when the terminal is gone. */
  draw(lines: readonly string[]): void {
    if (!this.opened) return;
    writeAll(this.fd, `\x1b[H${lines.map((l) => `${l}\x1b[K`).join('\r\n')}\x1b[J`);
  }

  /** Put the terminal back: main screen, cursor shown, raw mode off. Safe to call twice. */
  close(): void {
    if (!this.opened) return;
    this.opened = false;
    process.removeListener('exit', this.restoreAtExit);
    try {
      this.input.setRawMode(false);
    } catch {
      // stdin already gone: nothing to put back there
    }
    this.input.pause();
    this.input.removeAllListeners('keypress');
    try {
      writeAll(this.fd, LEAVE);
    } catch {
      // the terminal is gone
    }
  }
}

/** Write all of `text`, waiting out a full terminal (EAGAIN: a slow terminal is not a gone one). */
function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; buf.length > 0; ) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++tries > 200) throw err;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
