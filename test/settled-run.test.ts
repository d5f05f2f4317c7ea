import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutoff, isClaimable } from '../src/board/claimable.js';
import { claimNext } from '../src/file/claim.js';
import { resultOf } from '../src/board/plan.js';
import { walkLines } from '../src/board/walk.js';
import { bytes, toByteString } from '../src/format/bytes.js';
import { formatClaimedAt } from '../src/format/marker.js';
import { settledRun } from '../src/format/settled-run.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const LIMIT = cutoff(NOW); // 11:30:00 with the default 30m lease

/** The first claimable task as a plain walk finds it, visiting every line: its line and whether all above were done. */
function reference(src: string) {
  let above = false;
  const s = walkLines(src, (t, aboveAllDone) => {
    above = aboveAllDone;
    return isClaimable(t.marker(), aboveAllDone, LIMIT);
  });
  return s ? { line: s.line, above } : null;
}

/** The same walk passing over settled runs. */
function passing(src: string) {
  let above = false;
  let visited = 0;
  const s = walkLines(
    src,
    (t, aboveAllDone) => {
      visited++;
      above = aboveAllDone;
      return isClaimable(t.marker(), aboveAllDone, LIMIT);
    },
    undefined,
    () => settledRun(LIMIT.iso!),
  );
  return { found: s ? { line: s.line, above } : null, visited };
}

// Claim times on both sides of the cutoff, and on it.
const time = fc.constantFrom(-3_600_000, -1, 0, 1, 1_000, 59_000, 3_600_000, 86_400_000 * 400).map((d) => formatClaimedAt(LIMIT.ms + d));
const marker = fc.oneof(
  { weight: 4, arbitrary: time.map((t) => `[🟡, w1, ${t}]`) },
  { weight: 1, arbitrary: time.map((t) => `[🟡\uFE0F, w1, ${t}]`) },
  { weight: 1, arbitrary: time.map((t) => `[🟡, w1, ${t}, 2h]`) },
  { weight: 2, arbitrary: fc.constantFrom('[x]', '[X]', '[✅ abc1, w2]', '[✅, w2]', '[❌, w3]', '[ ]', '[⏰]', '[🟡, w4]', '[✅  abc, w2]', '[✅, a51df2e, 03e166af]', '[🟡 w-1, trees/x]', '[❌ w-2]', '[, id1]') },
);
const text = fc.constantFrom(' task', ' task', ' other {t}', '', '  ', ' \t x');
const prefix = fc.constantFrom('- ', '- ', '- ', '* ', '+ ', '-  ', '1. ', '  - ', '', '> - ');
const taskLine = fc.tuple(prefix, marker, text).map(([p, m, t]) => p + m + t);
const other = fc.constantFrom('', '# Section', '## Two', 'prose', '  continued', '  ---', '---', '===', '```', '<!--', '-->');
const board = fc
  .tuple(fc.array(fc.oneof({ weight: 5, arbitrary: taskLine }, { weight: 1, arbitrary: other }), { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
  .map(([lines, eol, final]) => toByteString(lines.join(eol) + (final ? eol : '')));

/**
 * Holds the walk that passes over runs, and claimNext, to a walk of every
 * line on boards from `boards`; returns on how many boards a run was passed over.
 */
function agreesWithEveryLine(boards: fc.Arbitrary<string>): number {
  let skipped = 0;
  fc.assert(
    fc.property(boards, (src) => {
      const p = passing(src);
      const want = reference(src);
      expect(p.found).toEqual(want);
      // claimNext passes over claims later than the cutoff's minute: the same pick.
      expect(resultOf(claimNext(src, {}, { by: 'me', leaseMs: 1_800_000, now: NOW }))?.line ?? null).toBe(want?.line ?? null);
      let all = 0;
      walkLines(src, () => void all++);
      if (p.visited < all) skipped++;
    }),
    { numRuns: 3000 },
  );
  return skipped;
}

describe('passing over settled runs', () => {
  it('finds the same first claimable task, with the same view of the tasks above, as visiting every line', () => {
    // The generator must give runs to pass over for this to prove anything.
    expect(agreesWithEveryLine(board)).toBeGreaterThan(300);
  });

  it('finds the same first claimable task on ADW boards of bare lines, passing over their runs', () => {
    // Bare lines run on as one paragraph, which a line below may still end as a heading or interrupt.
    const bareLine = fc.tuple(fc.constantFrom('', '', '', ' ', '\t'), marker, text).map(([p, m, t]) => p + m + t);
    const between = fc.constantFrom('', '# Section', '## Git Worktree wt', 'Two\n---', 'prose', '---', '===', '***', '- [ ] item', '> q', '```', '<div>', '2. x');
    const bareBoard = fc
      .tuple(fc.array(fc.oneof({ weight: 12, arbitrary: bareLine }, { weight: 1, arbitrary: between }), { maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
      .map(([lines, eol, final]) => toByteString(lines.join(eol).replaceAll('\n', eol) + (final ? eol : '')));
    expect(agreesWithEveryLine(bareBoard)).toBeGreaterThan(300);
  });

  it('claims from a bare-line board whose first half is claimed without visiting the claimed lines', () => {
    for (const eol of ['\n', '\r\n']) {
      const lines = ['# Tasks', ''];
      for (let i = 1; i <= 2000; i++) lines.push(`${i <= 1000 ? `[🟡, pre, ${formatClaimedAt(NOW - 60_000)}]` : '[ ]'} task ${i}`);
      const src = bytes(lines.join(eol) + eol);
      expect(resultOf(claimNext(src, {}, { by: 'me', leaseMs: 1_800_000, now: NOW }))).toMatchObject({ line: 1003, text: 'task 1001' });
      expect(passing(src).visited).toBeLessThan(10);
      // An underline at the end makes the whole paragraph a heading: nothing to claim, and nothing passed over wrongly.
      const heading = bytes(lines.join(eol) + eol + '---' + eol);
      expect(passing(heading).found).toBeNull();
      expect(reference(heading)).toBeNull();
    }
  });

  it('does not pass over a run that starts in a new section, where a failed task must still count as not done', () => {
    // Found by the property above: the heading was read ahead, and the ❌ under it was passed over unseen.
    const src = bytes('- [🟡, w1, 2026-11-30T10:30:00Z, 2h] task\n## Two\n- [❌, w3] task\n- [x] task\n- [🟡, w1, 2026-11-30T10:30:00Z] task');
    expect(reference(src)).toEqual({ line: 5, above: false });
    expect(passing(src).found).toEqual({ line: 5, above: false });
  });

  it('keeps a blocked task below a run blocked when the run holds a claim, even after done tasks', () => {
    const live = formatClaimedAt(NOW);
    const src = bytes(`## S\n- [x] a\n- [🟡, w1, ${live}] b\n- [x] c\n- [⏰] d\n- [ ] e\n`);
    expect(passing(src).found).toEqual({ line: 6, above: false });
    expect(reference(src)).toEqual({ line: 6, above: false });
  });

  it('claims the same task on a board whose first half is claimed', () => {
    const lines = ['# Tasks', ''];
    for (let i = 1; i <= 2000; i++) lines.push(`- ${i <= 1000 ? `[🟡, pre, ${formatClaimedAt(NOW - 60_000)}]` : '[ ]'} task ${i}`);
    const src = bytes(lines.join('\n') + '\n');
    const got = claimNext(src, {}, { by: 'me', leaseMs: 1_800_000, now: NOW });
    expect(resultOf(got)).toMatchObject({ line: 1003, text: 'task 1001' });
    expect(passing(src).visited).toBeLessThan(10);
  });

  it('finds the same task on a board read after a related one, whose run it may know already', () => {
    // A process claims from boards that differ by a few lines: each reading passes over the run after reading its
    // neighbour, so a run it remembers that no longer holds must be read again. Every pair is checked against a walk of every line.
    const related = fc.tuple(board, fc.array(fc.tuple(fc.nat(), fc.oneof(taskLine, other)), { minLength: 1, maxLength: 4 })).map(([src, changes]) => {
      const eol = src.includes('\r\n') ? '\r\n' : src.includes('\r') ? '\r' : '\n';
      const lines = src.split(eol);
      for (const [at, line] of changes) lines[at % (lines.length + 1)] = toByteString(line);
      return [src, lines.join(eol)] as const;
    });
    let reused = 0;
    fc.assert(
      fc.property(related, ([before, after]) => {
        const first = passing(before);
        expect(first.found).toEqual(reference(before));
        const second = passing(after);
        expect(second.found).toEqual(reference(after));
        if (second.visited < first.visited + 2) reused++;
      }),
      { numRuns: 3000 },
    );
    expect(reused).toBeGreaterThan(300);
  });

  it('reads a remembered run again when a line inside it changed, however little', () => {
    const live = formatClaimedAt(NOW);
    const lines = (open: number) => Array.from({ length: 40 }, (_, i) => `- [${i + 1 === open ? ' ' : `🟡, w1, ${live}`}] task ${i + 1}`);
    const all = bytes(lines(0).join('\n') + '\n- [ ] last\n');
    expect(passing(all).found).toEqual({ line: 41, above: false });
    // The same length, one line opened in the middle of the run read above.
    const opened = bytes(lines(20).join('\n') + '\n- [ ] last\n');
    expect(passing(opened).found).toEqual({ line: 20, above: false });
    // A claim time one second earlier, on the cutoff: no longer settled.
    const lapsed = all.replace(`${live}] task 30`, `${formatClaimedAt(LIMIT.ms)}] task 30`);
    expect(passing(all).found).toEqual({ line: 41, above: false });
    expect(passing(lapsed).found).toEqual({ line: 30, above: false });
    expect(reference(lapsed)).toEqual({ line: 30, above: false });
  });

  it('matches only claim times later than the one it is given', () => {
    const at = '2026-11-30T11:30:00Z';
    const run = settledRun(at).items;
    const matches = (t: string) => {
      run.lastIndex = 0;
      return run.test(bytes(`- [🟡, w, ${t}] a\n`));
    };
    expect(['2026-11-30T11:30:01Z', '2026-11-30T12:00:00Z', '2027-01-01T00:00:00Z', '2026-11-30T11:31:00Z'].every(matches)).toBe(true);
    expect(['2026-11-30T11:30:00Z', '2026-11-30T11:29:59Z', '2025-12-31T23:59:59Z', '2026-11-30T11:30:0Z'].some(matches)).toBe(false);
    expect(() => settledRun('9999-12-31T23:59:59Z').items.test('- [🟡, w, 9999-12-31T23:59:59Z] a\n')).not.toThrow();
  });
});
