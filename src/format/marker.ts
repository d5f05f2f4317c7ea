import { bytes, type ByteString } from './bytes.js';
import { DEFAULT_LEASE_MS, formatDuration, readDuration } from './duration.js';
import { readFields } from './marker-fields.js';

export type Status = 'open' | 'blocked' | 'claimed' | 'done' | 'failed';

/** A status marker as read from a line: `[ ]`, `[⏰]`, `[🟡, by, at]`, `[🟡, by, at, lease]`, `[✅ commit, by]`, `[❌, by]`, `[x]`, and the forms other ADW tools write (see readFields). */
export interface Marker {
  status: Status;
  /** Byte offset just past the closing `]`. */
  end: number;
  by?: string;
  /** RFC 3339 text exactly as written in the marker. */
  claimedAt?: string;
  /** The claim's own lease in milliseconds, when the line says (`, 2h` after claimed_at); else the default 30m. */
  leaseMs?: number;
  commit?: string;
  /** Fields of a tool's own form that no rule places (an id, a worktree path), as written. */
  fields?: string[];
  /** A claim of a line that was open as `[]`, told by U+FE0F after its 🟡: a give-back writes `[]` again. */
  bare?: true;
}

// The emoji as they appear in a latin1 byte string (their UTF-8 bytes).
const CLAIMED = bytes('🟡');
const DONE = bytes('✅');
const FAILED = bytes('❌');
const BLOCKED = bytes('⏰');
const VS16 = bytes('\uFE0F'); // emoji presentation selector some editors add
const SIGNS = [[CLAIMED, 'claimed'], [DONE, 'done'], [FAILED, 'failed'], [BLOCKED, 'blocked']] as const;

const BY = /^[A-Za-z0-9._:@-]{1,64}$/;

/** Is `by` a valid claimant id (the adw_id): 1–64 of `[A-Za-z0-9._:@-]`? */
export function isValidBy(by: string): boolean {
  return BY.test(by);
}

/** Does a task's marker end here: a space, a tab, a line ending or the end of the file? */
export function endsToken(src: ByteString, pos: number): boolean {
  if (pos >= src.length) return true;
  const c = src.charCodeAt(pos);
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Read a status marker starting at `pos` (which must be a `[`). Returns null
 * when the bytes there are not one of the markers the format knows, so prose
 * such as `[link]` or Obsidian's `[/]` is never mistaken for a task.
 */
export function parseMarker(src: ByteString, pos: number): Marker | null {
  if (src.charCodeAt(pos) !== 0x5b /* [ */) return null;
  const quick = parseCommon(src, pos);
  if (quick !== undefined) return quick;
  const close = src.indexOf(']', pos + 1);
  if (close < 0 || !endsToken(src, close + 1)) return null;
  // A marker is short and lives on one line.
  if (close - pos > 200) return null;
  const inner = src.slice(pos + 1, close);
  if (inner.includes('\n') || inner.includes('\r')) return null;
  const end = close + 1;

  if (inner === '' || inner === ' ') return { status: 'open', end };
  if (inner === 'x' || inner === 'X') return { status: 'done', end };
  if (inner.startsWith(',')) return readFields(inner, 'open', end);

  for (const [emoji, status] of SIGNS) {
    if (!inner.startsWith(emoji)) continue;
    let rest = inner.slice(emoji.length);
    const selector = rest.startsWith(VS16);
    if (selector) rest = rest.slice(VS16.length);
    const m = readFields(rest, status, end);
    if (m !== null && selector && status === 'claimed') m.bare = true;
    return m;
  }
  return null;
}

const CLAIMED_HEAD = '[' + CLAIMED + ', ';

/**
 * The markers a busy board is made of — `[ ]`, `[]`, `[x]` and the
 * `[🟡, by, 2026-11-30T04:06:29Z]` mdclaim writes — read with charCodeAt alone:
 * a claim reads past every claimed line above the first open one. Returns
 * undefined to hand anything else to the general reader.
 */
function parseCommon(src: ByteString, pos: number): Marker | null | undefined {
  const c1 = src.charCodeAt(pos + 1);
  if (c1 === 0x5d /* ] */) return endsToken(src, pos + 2) ? { status: 'open', end: pos + 2 } : null;
  if (src.charCodeAt(pos + 2) === 0x5d) {
    if (c1 === 0x20) return endsToken(src, pos + 3) ? { status: 'open', end: pos + 3 } : null;
    if (c1 === 0x78 || c1 === 0x58) return endsToken(src, pos + 3) ? { status: 'done', end: pos + 3 } : null;
  }
  if (!src.startsWith(CLAIMED_HEAD, pos)) return undefined;
  const byStart = pos + CLAIMED_HEAD.length;
  let i = byStart;
  while (i < byStart + 64 && isByChar(src.charCodeAt(i))) i++;
  // `, ` then exactly `YYYY-MM-DDTHH:MM:SSZ]`
  if (i === byStart || src.charCodeAt(i) !== 0x2c || src.charCodeAt(i + 1) !== 0x20) return undefined;
  const at = i + 2;
  const after = src.charCodeAt(at + 20);
  if ((after !== 0x5d && after !== 0x2c) || !isCanonicalTime(src, at)) return undefined;
  const m: Marker = { status: 'claimed', end: at + 21, by: src.slice(byStart, i), claimedAt: src.slice(at, at + 20) };
  if (after === 0x2c) {
    // `, <lease>]`: a short run of digits, a dot and unit letters.
    if (src.charCodeAt(at + 21) !== 0x20) return undefined;
    let j = at + 22;
    while (j < at + 64 && isLeaseChar(src.charCodeAt(j))) j++;
    if (src.charCodeAt(j) !== 0x5d) return undefined;
    const ms = readDuration(src.slice(at + 22, j));
    if (ms === null) return null;
    m.leaseMs = ms;
    m.end = j + 1;
  }
  return endsToken(src, m.end) ? m : null;
}

function isLeaseChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x6d || c === 0x73 || c === 0x68 || c === 0x64;
}

// The markers mdclaim writes, as sticky patterns over the latin1 bytes: a pattern runs as
// native code even in a fresh process, where a loop over the bytes would be interpreted.
const latin1 = (text: string) => [...bytes(text)].map((c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
const BY_RE = '[A-Za-z0-9._:@-]{1,64}';
const TIME_RE = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const CANONICAL_CLAIM = new RegExp(`\\[${latin1('🟡')}(?:${latin1('\uFE0F')})?, ${BY_RE}, ${TIME_RE}\\]`, 'y');
const CANONICAL_DONE = new RegExp(`\\[${latin1('✅')}(?: [A-Za-z0-9._/-]{1,64})?, ${BY_RE}\\]`, 'y');
const CANONICAL_FAILED = new RegExp(`\\[${latin1('❌')}, ${BY_RE}\\]`, 'y');

function matchesAt(re: RegExp, src: ByteString, pos: number): boolean {
  re.lastIndex = pos;
  return re.test(src);
}

/**
 * The status of the marker at `pos` (a `[`) whose `]` is at `close`, the
 * first after `pos`: parseMarker's answer (null when it finds no marker),
 * reached without building anything for the markers boards are made of.
 * Every marker ends at its first `]`, followed by a blank or a line ending.
 */
export function markerStatus(src: ByteString, pos: number, close: number): Status | null {
  if (!endsToken(src, close + 1)) return null;
  const c1 = src.charCodeAt(pos + 1);
  if (close === pos + 1) return 'open';
  if (close === pos + 2) {
    if (c1 === 0x20) return 'open';
    if (c1 === 0x78 || c1 === 0x58) return 'done';
  } else if (c1 === 0xf0) {
    if (canonicalClaimTime(src, pos) >= 0) return 'claimed';
  } else if (c1 === 0xe2) {
    if (matchesAt(CANONICAL_DONE, src, pos)) return 'done';
    if (matchesAt(CANONICAL_FAILED, src, pos)) return 'failed';
  }
  return parseMarker(src, pos)?.status ?? null;
}

/**
 * Where the claim time of `[🟡, by, YYYY-MM-DDTHH:MM:SSZ]` (the claim mdclaim
 * writes, with U+FE0F after the 🟡 for a line that was `[]`) starts, for the marker at `pos`; -1 for any other marker. The
 * caller checks what follows the `]`.
 */
export function canonicalClaimTime(src: ByteString, pos: number): number {
  return src.charCodeAt(pos + 1) === 0xf0 && matchesAt(CANONICAL_CLAIM, src, pos) ? CANONICAL_CLAIM.lastIndex - 21 : -1;
}

function isByChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x3a) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x40;
}

/** `YYYY-MM-DDTHH:MM:SSZ` at `at`, digits where digits go. */
function isCanonicalTime(src: ByteString, at: number): boolean {
  for (let k = 0; k < 20; k++) {
    const c = src.charCodeAt(at + k);
    const want = k === 4 || k === 7 ? 0x2d : k === 10 ? 0x54 : k === 13 || k === 16 ? 0x3a : k === 19 ? 0x5a : -1;
    if (want === -1 ? c < 0x30 || c > 0x39 : c !== want) return false;
  }
  return true;
}

/**
 * Write a marker for a status (as UTF-8 text; callers encode). A claim's lease
 * is written only when it differs from the default 30m, so boards that never
 * use another lease stay in ADW's three-field form. A claim of a line open as
 * `[]` (`bare`) carries U+FE0F after its 🟡, which shows nothing and reads the
 * same to every ADW reader, so a give-back can write `[]` again.
 */
export function renderMarker(m: { status: Status; by?: string; claimedAt?: string; leaseMs?: number; commit?: string; bare?: boolean }): string {
  switch (m.status) {
    case 'open':
      return '[ ]';
    case 'blocked':
      return '[⏰]';
    case 'claimed':
      return `[🟡${m.bare ? '\uFE0F' : ''}${m.by ? `, ${m.by}` : ''}${m.by && m.claimedAt ? `, ${m.claimedAt}${leaseField(m.leaseMs)}` : ''}]`;
    case 'done':
      return `[✅${m.commit ? ` ${m.commit}` : ''}${m.by ? `, ${m.by}` : ''}]`;
    case 'failed':
      return `[❌${m.by ? `, ${m.by}` : ''}]`;
  }
}

function leaseField(ms: number | undefined): string {
  return ms === undefined || ms === DEFAULT_LEASE_MS ? '' : `, ${formatDuration(ms)}`;
}

/** The claim timestamp: RFC 3339 UTC to the second, as `2026-11-30T04:06:29Z`. */
export function formatClaimedAt(ms: number): string {
  // Claims come many a second, and each asks for three times (its own, the lease cutoff's and
  // its expiry): the texts of the last few seconds asked for are kept (a claim's time is to the second).
  const sec = Math.floor(ms / 1000);
  for (let i = 0; i < KEPT; i++) if (seconds[i] === sec) return texts[i]!;
  const text = sec >= 0 && sec < LAST_FOUR_DIGIT_SECOND ? utcText(sec) : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  seconds[next] = sec;
  texts[next] = text;
  next = (next + 1) % KEPT;
  return text;
}

/** The first second of year 10,000, from which toISOString writes a six-digit year. */
const LAST_FOUR_DIGIT_SECOND = 253402300800;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `YYYY-MM-DDTHH:MM:SSZ` of a second from 1970 to 9999, by arithmetic (the
 * proleptic Gregorian calendar toISOString uses): a fresh process's first
 * toISOString costs some 200 µs, which a CLI claim paid under the lock.
 */
function utcText(sec: number): string {
  const days = Math.floor(sec / 86_400);
  const inDay = sec - days * 86_400;
  // Days to a civil date, from a year that starts on 1 March (so that the leap day ends it).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(inDay / 3_600);
  const m = Math.floor((inDay - h * 3_600) / 60);
  return `${year}-${two(month)}-${two(day)}T${two(h)}:${two(m)}:${two(inDay % 60)}Z`;
}

const KEPT = 4;
const seconds: number[] = new Array<number>(KEPT).fill(NaN);
const texts: string[] = new Array<string>(KEPT).fill('');
let next = 0;
