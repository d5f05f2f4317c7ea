import { withoutAfter } from './after.js';
import type { ByteString } from './bytes.js';

// A tracker key the text starts with (`PLAT-1 Add login`) is the id people already use.
const KEY = /^[A-Z][A-Z0-9]*-[0-9]+(?![A-Za-z0-9_-])/;
const KEY_ID = /^[A-Z][A-Z0-9]*-[0-9]+$/;
const HASH_ID = /^[0-9a-f]{12}$/;

/** The tracker key a task's text bytes start with, if any (after what it waits for: `{after: …} PLAT-1 …` is PLAT-1's). */
export function trackerKey(src: ByteString, start: number, end: number): string | null {
  const c = src.charCodeAt(start);
  if (c === 0x7b) {
    const text = src.slice(start, end);
    const kept = withoutAfter(text);
    return kept === text ? null : trackerKey(kept, 0, kept.length);
  }
  if (!(c >= 0x41 && c <= 0x5a)) return null; // cheap reject: keys start with A-Z
  const m = KEY.exec(src.slice(start, Math.min(end, start + 40)));
  return m ? m[0] : null;
}

/**
 * 12 hex digits of a 48-bit hash of the text bytes: what a task answers to
 * whatever else is on the board. What the text waits for (`{after: …}`, see
 * after.ts) is not hashed, so declaring it keeps the id.
 */
export function textHash(src: ByteString, start: number, end: number): string {
  const n = textHashNumber(src, start, end);
  return hex8(Math.floor(n / 0x10000)) + (n % 0x10000).toString(16).padStart(4, '0');
}

/** textHash as the number its 12 hex digits write: for comparing many texts with one id without writing each out. */
export function textHashNumber(src: ByteString, start: number, end: number): number {
  // Two FNV-1a lanes with different primes, each finished with a murmur3 mix.
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  let brace = false;
  for (let i = start; i < end; i++) {
    const c = src.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    if (c === 0x7b) brace = true;
  }
  if (brace) {
    // Only a text with a brace can wait for anything: hash it again without what it waits for.
    const text = src.slice(start, end);
    const kept = withoutAfter(text);
    if (kept !== text) return textHashNumber(kept, 0, kept.length);
  }
  return mix(a) * 0x10000 + (mix(b ^ (end - start)) >>> 16);
}

/** The number a 12-hex id writes (see textHashNumber). */
export function hashNumber(id: string): number {
  return parseInt(id.slice(0, 8), 16) * 0x10000 + parseInt(id.slice(8), 16);
}

/**
 * The id rule, in one place: a task's id is the tracker key its text starts
 * with when that key is on no other task of the board, else the hash of its
 * text. It depends on the text alone (and on whether the key is shared), never
 * on status or position, so exact duplicates share one id.
 */
export function taskId(src: ByteString, start: number, end: number, key: string | null, keyIsUnique: boolean): string {
  return key !== null && keyIsUnique ? key : textHash(src, start, end);
}

/** What an id given by a caller can be: a tracker key, a text hash, or neither (no task has it). */
export function idForm(id: string): 'key' | 'hash' | null {
  return KEY_ID.test(id) ? 'key' : HASH_ID.test(id) ? 'hash' : null;
}

/**
 * Does a task's text answer to `id`? A key names every task whose text starts
 * with it (the caller decides what several mean); a hash names every task with
 * that text, keyed or not, so an id handed out while a key was shared still
 * finds its task once the key is unique again.
 */
export function answersTo(src: ByteString, start: number, end: number, id: string, form: 'key' | 'hash'): boolean {
  return form === 'key' ? trackerKey(src, start, end) === id : textHash(src, start, end) === id;
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
