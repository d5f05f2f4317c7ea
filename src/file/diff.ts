/**
 * A longest common subsequence of two sequences of small integers (lines,
 * each numbered by its content), as the index pairs it matches, in order.
 *
 * Myers' O(ND) algorithm in linear space: strip the common head and tail,
 * find the middle of an optimal edit path by running it from both ends at
 * once, and recurse on the two halves. A board's edits are small next to the
 * board, so D is small; memory stays O(N) even when a person rewrites it all.
 * (The bisection follows diff-match-patch's `diff_bisect_`.)
 */
export function commonSubsequence(a: ArrayLike<number>, b: ArrayLike<number>): Array<[number, number]> {
  // The common head and tail first: after a small edit of a large board they are nearly all of it.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // In between, an element the other side lacks can never be matched: leaving those out keeps
  // the answer and turns a rewrite (every line new) from the worst case into the easiest one.
  const inA = new Set<number>();
  const inB = new Set<number>();
  for (let i = head; i < a.length - tail; i++) inA.add(a[i]!);
  for (let j = head; j < b.length - tail; j++) inB.add(b[j]!);
  const ai = indexesOf(a, head, a.length - tail, inB);
  const bi = indexesOf(b, head, b.length - tail, inA);
  const fa = Int32Array.from(ai, (i) => a[i]!);
  const fb = Int32Array.from(bi, (j) => b[j]!);
  const middle: Array<[number, number]> = [];
  lcs(fa, fb, 0, fa.length, 0, fb.length, middle);
  const out: Array<[number, number]> = [];
  for (let k = 0; k < head; k++) out.push([k, k]);
  for (const [i, j] of middle) out.push([ai[i]!, bi[j]!]);
  for (let k = tail; k > 0; k--) out.push([a.length - k, b.length - k]);
  return out;
}

function indexesOf(xs: ArrayLike<number>, from: number, to: number, keep: Set<number>): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (keep.has(xs[i]!)) out.push(i);
  return out;
}

function lcs(a: ArrayLike<number>, b: ArrayLike<number>, a0: number, a1: number, b0: number, b1: number, out: Array<[number, number]>): void {
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out.push([a0++, b0++]);
  let tail = 0;
  while (a1 - tail > a0 && b1 - tail > b0 && a[a1 - 1 - tail] === b[b1 - 1 - tail]) tail++;
  a1 -= tail;
  b1 -= tail;
  if (a0 < a1 && b0 < b1) {
    const mid = bisect(a, b, a0, a1, b0, b1);
    // A split at a corner would not make the problem smaller; it never happens, but never loop on it.
    if (mid && !(mid[0] === a0 && mid[1] === b0) && !(mid[0] === a1 && mid[1] === b1)) {
      lcs(a, b, a0, mid[0], b0, mid[1], out);
      lcs(a, b, mid[0], a1, mid[1], b1, out);
    }
  }
  for (let k = 0; k < tail; k++) out.push([a1 + k, b1 + k]);
}

/** The point where an optimal edit path of a[a0, a1) into b[b0, b1) crosses its middle; null when nothing is common. */
function bisect(a: ArrayLike<number>, b: ArrayLike<number>, a0: number, a1: number, b0: number, b1: number): [number, number] | null {
  const n = a1 - a0;
  const m = b1 - b0;
  const maxD = Math.ceil((n + m) / 2);
  const off = maxD;
  const len = 2 * maxD + 2;
  // v1[off + k]: the furthest x on diagonal k from the start; v2 the same from the end.
  const v1 = new Int32Array(len).fill(-1);
  const v2 = new Int32Array(len).fill(-1);
  v1[off + 1] = 0;
  v2[off + 1] = 0;
  const delta = n - m;
  // With an odd delta the forward path is the one to meet the reverse one.
  const front = (delta & 1) !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const i1 = off + k1;
      let x1 = k1 === -d || (k1 !== d && v1[i1 - 1]! < v1[i1 + 1]!) ? v1[i1 + 1]! : v1[i1 - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < n && y1 < m && a[a0 + x1] === b[b0 + y1]) {
        x1++;
        y1++;
      }
      v1[i1] = x1;
      if (x1 > n) k1end += 2; // ran off the right
      else if (y1 > m) k1start += 2; // ran off the bottom
      else if (front) {
        const i2 = off + delta - k1;
        if (i2 >= 0 && i2 < len && v2[i2] !== -1 && x1 >= n - v2[i2]!) return [a0 + x1, b0 + y1];
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const i2 = off + k2;
      let x2 = k2 === -d || (k2 !== d && v2[i2 - 1]! < v2[i2 + 1]!) ? v2[i2 + 1]! : v2[i2 - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < n && y2 < m && a[a1 - 1 - x2] === b[b1 - 1 - y2]) {
        x2++;
        y2++;
      }
      v2[i2] = x2;
      if (x2 > n) k2end += 2;
      else if (y2 > m) k2start += 2;
      else if (!front) {
        const i1 = off + delta - k2;
        if (i1 >= 0 && i1 < len && v1[i1] !== -1) {
          const x1 = v1[i1]!;
          const y1 = off + x1 - i1;
          if (x1 >= n - x2) return [a0 + x1, b0 + y1];
        }
      }
    }
  }
  return null;
}
