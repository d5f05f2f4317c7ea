import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimInstant, readRfc3339 } from '../src/format/claim-time.js';
import { formatClaimedAt } from '../src/format/marker.js';

// The one reading of a claim time (src/format/claim-time.ts).

describe('claimInstant', () => {
  it('reads every time mdclaim writes as the instant it was written from', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799 }), (sec) => {
        expect(claimInstant(formatClaimedAt(sec * 1000))).toBe(sec * 1000);
      }),
    );
  });

  it('agrees with Date.parse on every day that exists, with any offset and fraction', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0101-01-01T00:00:00Z'), max: new Date('9998-12-31T23:59:59Z'), noInvalidDate: true }), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (d, off) => {
        const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 23);
        const sign = off < 0 ? '-' : '+';
        const text = `${local}${sign}${String(Math.floor(Math.abs(off) / 60)).padStart(2, '0')}:${String(Math.abs(off) % 60).padStart(2, '0')}`;
        expect(claimInstant(text)).toBe(Date.parse(text));
      }),
    );
  });

  it('reads the form every board writes as the general reading does, whatever its digits say', () => {
    const two = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')), two, two, two, two, two, (y, mo, d, h, mi, s) => {
        const text = `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
        expect([text, claimInstant(text)]).toEqual([text, readRfc3339(text)]);
      }),
      { numRuns: 5000 },
    );
    // Twenty characters that are not quite the form: a character changed anywhere.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799 }), fc.nat(19), fc.constantFrom('x', ' ', '/', ':', '-', 'T', 'Z', '9', '0', '+'), (sec, at, c) => {
        const base = formatClaimedAt(sec * 1000);
        const text = base.slice(0, at) + c + base.slice(at + 1);
        expect([text, claimInstant(text)]).toEqual([text, readRfc3339(text)]);
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a leap second as the instant :59 ends, as PostgreSQL does', () => {
    expect(claimInstant('2016-12-31T23:59:60Z')).toBe(Date.parse('2017-01-01T00:00:00Z'));
    expect(claimInstant('2016-12-31T23:59:60.250Z')).toBe(Date.parse('2017-01-01T00:00:00.250Z'));
    expect(claimInstant('2017-01-01T00:59:60+01:00')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it('names no instant for a day, hour, minute, second or offset that does not exist', () => {
    for (const text of ['2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z', '2026-01-00T00:00:00Z',
      '2026-01-01T24:00:00Z', '2026-01-01T00:60:00Z', '2026-01-01T00:00:61Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+01:60', '0000-01-01T00:00:00Z', 'yesterday', '2026-01-01 00:00:00Z']) {
      expect([text, claimInstant(text)]).toEqual([text, null]);
    }
    expect(claimInstant('2024-02-29T00:00:00Z')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(claimInstant('2000-02-29T00:00:00Z')).toBe(Date.parse('2000-02-29T00:00:00Z'));
  });
});
