import type { ByteString } from './bytes.js';

// A tracker key the text starts with (`PLAT-1 Add login`) is the id people already use.
const KEY = /^[A-Z][A-Z0-9]*-[0-9]+(?![A-Za-z0-9_-])/;

/** The tracker key a task's text bytes start with, if any. */
export function trackerKey(src: ByteString, start: number, end: number): string | null {
  const c = src.charCodeAt(start);
  if (!(c >= 0x41 && c <= 0x5a)) return null; // cheap reject: keys start with A-Z
  const m = KEY.exec(src.slice(start, Math.min(end, start + 40)));
  return m ? m[0] : null;
}

/**
 * The id of a task before duplicates are told apart: its tracker key, else
 * 12 hex digits of a 48-bit hash of its text. It depends on nothing but the
 * text, so status and position never change it.
 */
export function baseId(src: ByteString, start: number, end: number): string {
  return trackerKey(src, start, end) ?? textHash(src, start, end);
}

/** 12 hex digits of a 48-bit hash of the text bytes: the id of a task without a tracker key of its own. */
export function textHash(src: ByteString, start: number, end: number): string {
  // Two FNV-1a lanes with different primes, each finished with a murmur3 mix.
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = start; i < end; i++) {
    const c = src.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return hex8(mix(a)) + hex8(mix(b ^ (end - start))).slice(0, 4);
}

/** What makes two tasks the "same" for numbering duplicates: the tracker key, else the exact text. */
export function sameness(src: ByteString, start: number, end: number): string {
  return trackerKey(src, start, end) ?? src.slice(start, end);
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/** Numbers duplicates in file order: the second task with the same key or text is `<id>-2`, and so on. */
export class IdAssigner {
  private readonly seen = new Map<string, number>();

  assign(src: ByteString, start: number, end: number): string {
    return withOrdinal(baseId(src, start, end), this.ordinal(src, start, end));
  }

  /** 1 for the first task with this key or text, 2 for the second, … */
  ordinal(src: ByteString, start: number, end: number): number {
    const same = sameness(src, start, end);
    const n = (this.seen.get(same) ?? 0) + 1;
    this.seen.set(same, n);
    return n;
  }
}

export function withOrdinal(base: string, n: number): string {
  return n === 1 ? base : `${base}-${n}`;
}
