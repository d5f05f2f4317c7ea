import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { boardFile } from './helpers/tmp.js';
import { tmuxAvailable, TmuxWatch } from './helpers/tmux.js';

// An idle `watch` of a large board costs a stat a poll, not a reading: nothing changed, nothing read.

const TASKS = 20_000;
const BOARD = `# Big\n\n${Array.from({ length: TASKS }, (_, i) => `- [ ] task number ${i} with some text to make its line long\n`).join('')}`;

const terms: TmuxWatch[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.kill();
});

/** Bytes the process has read so far (read(2) and friends), as /proc counts them. */
const bytesRead = (pid: number): number => Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
/** The clock on watch's top line, in seconds of the day. */
const clockOf = (screen: string): number => {
  const [h, m, s] = /(\d\d):(\d\d):(\d\d) UTC/.exec(screen)!.slice(1).map(Number) as [number, number, number];
  return h * 3600 + m * 60 + s;
};

describe.skipIf(!tmuxAvailable || process.platform !== 'linux')('watch on a large board left alone', () => {
  it('reads nothing while the board is unchanged through several polls, and still follows a change', async () => {
    const file = boardFile(BOARD);
    // Last written an hour ago: long past any timestamp's granularity.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, hourAgo, hourAgo);
    const t = new TmuxWatch();
    terms.push(t);
    t.start(['-f', file]);
    const first = await t.waitFor(`open ${TASKS}`);
    const pid = Number(execFileSync('pgrep', ['-P', String(t.panePid())], { encoding: 'utf8' }).trim().split('\n')[0]);
    const before = bytesRead(pid);
    // Three polls (2 s each) at least, told by watch's own clock on screen.
    const from = clockOf(first);
    await t.waitFor((s) => (clockOf(s) - from + 86_400) % 86_400 >= 7, 'seven seconds on the clock');
    const read = bytesRead(pid) - before;
    expect(read).toBeLessThan(statSync(file).size / 4);
    appendFileSync(file, '- [ ] one more\n');
    await t.waitFor(`open ${TASKS + 1}`);
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });
});
