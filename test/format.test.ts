import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { reshaped, type Task } from '../src/format/task.js';
import { parseDuration } from '../src/board/duration.js';
import { bytes, toByteString } from '../src/format/bytes.js';
import { formatClaimedAt, parseMarker, renderMarker } from '../src/format/marker.js';
import { inPlaceRange, PAGE } from '../src/storage/write.js';
import { parseTasks } from '../src/index.js';

const marker = (s: string) => parseMarker(toByteString(s), 0);

describe('status markers', () => {
  it.each([
    ['[] x', { status: 'open' }],
    ['[ ] x', { status: 'open' }],
    ['[x] x', { status: 'done' }],
    ['[⏰] x', { status: 'blocked' }],
    ['[⏰️] x', { status: 'blocked' }],
    ['[🟡] x', { status: 'claimed' }],
    ['[🟡, cc73faf1] x', { status: 'claimed', by: 'cc73faf1' }],
    ['[🟡, cc73faf1, 2026-11-30T04:06:29Z] x', { status: 'claimed', by: 'cc73faf1', claimedAt: '2026-11-30T04:06:29Z' }],
    ['[✅ 3ecdebb33, 17b93f48] x', { status: 'done', commit: '3ecdebb33', by: '17b93f48' }],
    ['[✅, 17b93f48] x', { status: 'done', by: '17b93f48' }],
    ['[❌, 0a1b] x // Failed: y', { status: 'failed', by: '0a1b' }],
    // The forms other ADW tools write (docs/FORMAT.md, dialects).
    ['[✅, a51df2e, 03e166af] x', { status: 'done', fields: ['a51df2e', '03e166af'] }],
    ['[✅, taskab, 0c4f1d2e9b7a] x', { status: 'done', by: 'taskab', commit: '0c4f1d2e9b7a' }],
    ['[✅, 0c4f1d2e9b7a, taskab] x', { status: 'done', by: 'taskab', commit: '0c4f1d2e9b7a' }],
    ['[⏰, taskgh] x', { status: 'blocked', fields: ['taskgh'] }],
    ['[, taskef] x', { status: 'open', fields: ['taskef'] }],
    ['[🟡 w-899e35, trees/gh-504] x', { status: 'claimed', by: 'w-899e35', fields: ['trees/gh-504'] }],
    ['[🟡 w-1, 2026-11-30T04:06:29Z, 2h] x', { status: 'claimed', by: 'w-1', claimedAt: '2026-11-30T04:06:29Z', leaseMs: 7_200_000 }],
    ['[🟡 w-1, 2026-11-30T04:06:29Z, trees/x] x', { status: 'claimed', by: 'w-1', claimedAt: '2026-11-30T04:06:29Z', fields: ['trees/x'] }],
    ['[⏰ w-154660, /srv/trees/gh-456] x', { status: 'blocked', fields: ['w-154660', '/srv/trees/gh-456'] }],
    ['[❌ w-0afb14] x', { status: 'failed', by: 'w-0afb14' }],
    ['[❌ abc, d] x', { status: 'failed', by: 'abc', fields: ['d'] }],
  ])('reads %s', (text, want) => {
    expect(marker(text)).toMatchObject(want);
  });

  it.each(['[link] x', '[/] x', '[-] x', '[  ] x', '[ ]x', '[🟡, a, yesterday] x', '[🟡, a, b, c] x', '[x', '[🟡, a b] x', '[ see] x', '[ , x] x', '[✅ , a] x', '[, ] x', '[🟡,] x'])(
    'does not take %s for a marker',
    (text) => {
      expect(marker(text)).toBeNull();
    },
  );

  it('renders what it reads', () => {
    for (const m of [
      { status: 'open' as const },
      { status: 'blocked' as const },
      { status: 'claimed' as const, by: 'a', claimedAt: '2026-11-30T04:06:29Z' },
      { status: 'done' as const, by: 'a', commit: 'c1' },
      { status: 'done' as const, by: 'a' },
      { status: 'failed' as const, by: 'a' },
    ]) {
      const text = renderMarker(m);
      expect(marker(text + ' t')).toMatchObject(m);
    }
  });
});

describe('durations', () => {
  it.each([
    ['1500ms', 1500],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['0s', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', '-1s', '1w', '30 m', 'soon'])('refuses %j as a usage error', (text) => {
    expect(() => parseDuration(text)).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});

describe('the in-place write rule', () => {
  const size = PAGE + 10;
  const edit = (start: number, end: number, bytes: string) => [{ start, end, bytes }];

  it('writes a same-length change in place as just the changed bytes', () => {
    expect(inPlaceRange(size, edit(5, 6, 'b'))).toEqual({ at: 5, end: 6 });
  });

  it('writes a growing line in place only when the line to the new end of file stays in one page', () => {
    expect(inPlaceRange(size, edit(PAGE - 7, PAGE - 6, 'XXXX'))).toBeNull(); // the tail crosses into the next page
    const claim = bytes('[🟡, w, 2026-11-30T04:06:29Z]');
    expect(inPlaceRange(16, edit(10, 13, claim))).toEqual({ at: 10, end: 16 + claim.length - 3 });
    expect(inPlaceRange(size, edit(PAGE + 2, PAGE + 5, 'XXXXXX'))).toEqual({ at: PAGE + 2, end: size + 3 });
  });

  it('writes a same-length change that straddles a page boundary by replacing', () => {
    expect(inPlaceRange(size, edit(PAGE - 2, PAGE + 2, 'abcd'))).toBeNull();
  });

  it('never writes a shrinking change or several edits in place', () => {
    expect(inPlaceRange(size, edit(0, 1, ''))).toBeNull();
    expect(inPlaceRange(size, [...edit(0, 1, 'a'), ...edit(2, 3, 'a')])).toBeNull();
  });
});

describe('parseTasks', () => {
  it('is pure and reads strings and buffers alike', () => {
    const text = '## S\n- [ ] a {t}\n';
    expect(parseTasks(text)).toEqual(parseTasks(Buffer.from(text)));
    expect(parseTasks(text)[0]).toMatchObject({ text: 'a {t}', section: 'S', tags: ['t'], line: 2 });
  });
});

describe('reshaped tasks', () => {
  it('has the keys, values and key order of a spread followed by deletes, for every mix of kept, set and dropped keys', () => {
    const keys = ['id', 'text', 'line', 'status', 'tags', 'by', 'claimedAt', 'lease', 'expiresAt', 'commit', 'reason', 'section', 'locks'] as const;
    fc.assert(
      fc.property(fc.subarray([...keys]), fc.subarray([...keys]), fc.subarray([...keys]), (have, set, drop) => {
        const t = Object.fromEntries(have.map((k) => [k, `old ${k}`])) as unknown as Task;
        const changes = Object.fromEntries(set.map((k) => [k, `new ${k}`])) as Partial<Task>;
        const spread: Record<string, unknown> = { ...t, ...changes };
        for (const k of drop) delete spread[k];
        const got = reshaped(t, changes, drop);
        expect(Object.entries(got)).toEqual(Object.entries(spread));
        // The task it was made from is left as it was.
        expect(Object.keys(t)).toEqual(have);
      }),
      { numRuns: 500 },
    );
  });
});

describe('claim times', () => {
  it('formats each instant to its second, whatever was asked for before it (the texts of recent seconds are kept)', () => {
    const direct = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
    const instant = fc.oneof(fc.integer({ min: 0, max: 253402300799999 }), fc.constantFrom(1796040000000, 1796040000999, 1796041800000, 1796038200000));
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 12 }), (all) => {
        for (const ms of all) expect(formatClaimedAt(ms)).toBe(direct(ms));
      }),
      { numRuns: 500 },
    );
  });

  it('writes the seconds around each new year and leap day as toISOString does, 1970 to 9999', () => {
    const direct = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
    for (let year = 1970; year <= 9999; year++) {
      for (const [month, day] of [[0, 1], [1, 28], [1, 29], [2, 1], [11, 31]] as const) {
        const ms = Date.UTC(year, month, day, (year * 7) % 24, (year * 13) % 60, (year * 17) % 60);
        expect(formatClaimedAt(ms)).toBe(direct(ms));
        expect(formatClaimedAt(ms - 1000)).toBe(direct(ms - 1000));
      }
    }
    // Outside the four-digit years from 1970: as toISOString writes them.
    expect(formatClaimedAt(-1)).toBe('1969-12-31T23:59:59Z');
    expect(formatClaimedAt(253402300800000)).toBe('+010000-01-01T00:00:00Z');
  });
});
