import { writeSync } from 'node:fs';
import { EXIT } from './exit.js';

/**
 * stdout or stderr, written with write(2) on its descriptor. A descriptor
 * that would block (a non-blocking pipe whose reader is slow) hands the rest,
 * and all later output, to Node's stream, which waits for the reader; order
 * is kept either way. A reader that leaves early (`mdclaim list | head -1`)
 * is no failure: stdout stops quietly with the status sh shows for a writer
 * killed by SIGPIPE, and a closed stderr loses only the message, not the
 * outcome, so the exit status stands.
 */
export class Output {
  private stream: NodeJS.WriteStream | null = null;
  private gone = false;

  constructor(private readonly fd: 1 | 2, private readonly openStream: () => NodeJS.WriteStream) {}

  write(data: string | Uint8Array): void {
    if (this.gone) return;
    if (this.stream) {
      this.stream.write(data);
      return;
    }
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // EIO: the terminal is gone (its window closed, the ssh session dropped).
      if (code === 'EPIPE' || code === 'EIO') return this.closed();
      if (code !== 'EAGAIN') throw e;
      this.toStream().write(buf.subarray(off));
    }
  }

  private toStream(): NodeJS.WriteStream {
    const stream = this.openStream();
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'EIO') throw e;
      this.closed();
    });
    this.stream = stream;
    return stream;
  }

  private closed(): void {
    this.gone = true;
    if (this.fd === 1) process.exit(EXIT.BROKEN_PIPE);
  }
}
