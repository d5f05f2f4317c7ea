import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonSubsequence } from '../src/file/diff.js';

/** The length of a longest common subsequence, by the textbook table: the reference. */
function lcsLength(a: number[], b: number[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
  }
  return t[a.length]![b.length]!;
}

const seq = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 40 });

describe('commonSubsequence', () => {
  it('matches equal elements in increasing order, and as many as the textbook table finds', () => {
    fc.assert(
      fc.property(seq, seq, (a, b) => {
        const pairs = commonSubsequence(a, b);
        for (let k = 0; k < pairs.length; k++) {
          const [i, j] = pairs[k]!;
          expect(a[i]).toBe(b[j]);
          if (k > 0) {
            expect(i).toBeGreaterThan(pairs[k - 1]![0]);
            expect(j).toBeGreaterThan(pairs[k - 1]![1]);
          }
        }
        expect(pairs.length).toBe(lcsLength(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a small change in a long sequence, and a rewrite, without quadratic time or memory', () => {
    const a = Array.from({ length: 60_000 }, (_, i) => i);
    const b = [...a.slice(0, 1000), -1, ...a.slice(1001, 45_000), -2, ...a.slice(45_000)];
    expect(commonSubsequence(a, b)).toHaveLength(59_999);
    // A rewrite, every line new: Myers' worst case, unless lines the other side lacks are left out first.
    expect(commonSubsequence(a, a.map((x) => -x - 1))).toEqual([]);
    const half = a.map((x) => (x % 2 ? -x : x));
    expect(commonSubsequence(a, half)).toHaveLength(30_000);
  });
});
