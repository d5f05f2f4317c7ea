import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { isPgUrl } from '../pg/url.js';

/** Tells a watcher the board may have changed: it then reads it again. */
export interface ChangeSource {
  start(poke: () => void): void;
  close(): Promise<void>;
}

/** File board: 2 s. A change notification comes at once; the poll covers what it misses (a network file system, a watch that failed). */
export const FILE_POLL_MS = 2000;

/** Where a board's changes come from: its directory's notifications (file), or LISTEN/NOTIFY (PostgreSQL). */
export async function changesOf(location: string): Promise<ChangeSource> {
  if (!isPgUrl(location)) return new FileChanges(location);
  const { PgChanges } = await import('../pg/changes.js');
  return new PgChanges(location);
}

/**
 * fs.watch on the board's directory, not the file: a writer that replaces
 * the file renames a new one over it, and a watch on the old file would go
 * quiet. Only events naming the board (or naming nothing) count.
 */
export class FileChanges implements ChangeSource {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly dir: string;
  private readonly name: string;

  constructor(path: string, private readonly pollMs = FILE_POLL_MS) {
    this.dir = dirname(resolve(path));
    this.name = basename(path);
  }

  start(poke: () => void): void {
    this.timer = setInterval(() => {
      // A directory that was gone (or a watch that failed) is watched again once it is back.
      this.watcher ??= this.watchDir(poke);
      poke();
    }, this.pollMs);
    this.watcher = this.watchDir(poke);
  }

  private watchDir(poke: () => void): FSWatcher | null {
    try {
      const w = watch(this.dir, { persistent: false }, (_event, file) => {
        if (file === null || file === this.name) poke();
      });
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = null;
      });
      return w;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.watcher?.close();
    this.watcher = null;
  }
}
