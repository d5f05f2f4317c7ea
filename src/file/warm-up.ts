import { toByteString, type ByteString } from '../format/bytes.js';
import { checkReading } from '../board/check-reading.js';
import { resultOf, type Plan } from '../board/plan.js';

/**
 * A small board in memory, shaped like the ones claimed from: a heading,
 * runs of done and claimed lines (which the walk passes over in one match),
 * and open tasks after them.
 */
function warmBoard(): ByteString {
  let s = '# Tasks\n\n';
  for (let i = 1; i <= 24; i++) s += `- [✅ abc1234, w] done ${i}\n`;
  for (let i = 1; i <= 24; i++) s += `- [🟡, w, 2026-01-01T00:00:00Z] claimed ${i}\n`;
  for (let i = 1; i <= 24; i++) s += `- [ ] open ${i}\n`;
  return toByteString(Buffer.from(s));
}

let warmed = false;

/**
 * Run a process's first change once on a small board in memory before its
 * lock is taken, and forget the result. V8 compiles a function at its first
 * call, and the claim path at its first run costs several milliseconds of
 * that (about 7 ms alone here, much more with many fresh processes starting
 * at once): done under the lock, every waiter waits for it too. A decision
 * only reads the bytes it is given and returns what it would change, so
 * running it on other bytes writes nothing and leaves nothing behind but
 * compiled code (and caches that check what they are asked against what
 * they hold). Once per process; a decision that throws here is simply done.
 */
export function warmUp<T>(decide: (src: ByteString) => Plan<T>): void {
  if (warmed) return;
  warmed = true;
  const src = warmBoard();
  for (let i = 0; i < 3; i++) {
    try {
      resultOf(checkReading(src, decide(src)));
    } catch {
      return;
    }
  }
}
