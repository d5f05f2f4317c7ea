import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { ChangeSource } from '../board/types.js';

/** File board: 2 s. A change notification comes at once; the poll covers what it misses (a network file system, a watch that failed). */
export const FILE_POLL_MS = 2000;
/**
 * A file changed this recently may change again within its timestamp's
 * granularity, size and all, unseen by stat: the poll reads it anyway. One
 * left alone longer costs the poll a stat, however large it is.
 */
const RACY_MS = 3000;

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
  private readonly path: string;
  /** What the last poll's stat saw. */
  private seen = '';

  constructor(path: string, private readonly pollMs = FILE_POLL_MS) {
    this.path = resolve(path);
    this.dir = dirname(this.path);
    this.name = basename(path);
  }

  start(poke: () => void): void {
    this.changed();
    this.timer = setInterval(() => {
      // A directory that was gone (or a watch that failed) is watched again once it is back.
      this.watcher ??= this.watchDir(poke);
      if (this.changed()) poke();
    }, this.pollMs);
    this.watcher = this.watchDir(poke);
  }

  /** Has the file changed since the last poll (another file renamed over it, written, gone, back), or may it have? */
  private changed(): boolean {
    let now: string;
    let racy = false;
    try {
      const st = statSync(this.path, { bigint: true });
      now = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
      racy = Date.now() - Number(st.mtimeNs / 1_000_000n) < RACY_MS;
    } catch (err) {
      now = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    }
    const changed = now !== this.seen || racy;
    this.seen = now;
    return changed;
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
