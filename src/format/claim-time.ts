// The one reading of a claim time, for every board: a file board deciding
// whether a claim has lapsed and a PostgreSQL board importing the line both
// ask claimInstant, so one line lapses at one instant wherever it is kept.

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the instants a four-digit UTC year can write. */
const FIRST = -62_135_596_800_000;
const LAST = 253_402_300_799_999;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant an RFC 3339 claim time names, in epoch milliseconds, or null
 * when it names none: a day the month does not have (2026-02-30), month 13,
 * hour 24, minute or offset out of range, year 0000 (PostgreSQL has none),
 * or an instant outside years 1–9999 UTC, which an offset or a leap second
 * can reach from inside them (no board writes it back as RFC 3339). A leap
 * second (`23:59:60Z`) is the instant after `23:59:59Z` ends, as
 * PostgreSQL reads it. Fractions past the millisecond are dropped.
 */
export function claimInstant(text: string): number | null {
  const canonical = text.length === 20 ? utcSecond(text) : undefined;
  return canonical === undefined ? readRfc3339(text) : canonical;
}

/** '0' */
const ZERO = 0x30;

/** The digits of `s` at `at`..`at + n`, as a number; -1 where one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * The form every board writes, `YYYY-MM-DDTHH:MM:SSZ`, read without a regular expression or a
 * Date: the same instant readRfc3339 gives, or null where it gives null. undefined for any other
 * form, and for years 0–99 (Date.UTC reads them as 1900–1999): readRfc3339 reads those.
 */
function utcSecond(s: string): number | null | undefined {
  if (s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d || s.charCodeAt(10) !== 0x54 || s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a || s.charCodeAt(19) !== 0x5a) {
    return undefined;
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  // Second 60 carries into the next minute, as in readRfc3339.
  const ms = Date.UTC(year, month - 1, day, hour, minute) + second * 1000;
  return ms > LAST ? null : ms;
}

/** Any RFC 3339 time, as claimInstant says. */
export function readRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offset = 0;
  if (m[8] !== undefined) {
    const [oh, om] = [Number(m[9]), Number(m[10])];
    if (oh > 23 || om > 59) return null;
    offset = (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const frac = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999. Second 60 carries into the next minute.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, frac);
  const ms = at.getTime() - offset;
  return ms < FIRST || ms > LAST ? null : ms;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
