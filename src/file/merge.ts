import type { ByteString } from '../format/bytes.js';
import { scanTasks } from '../format/scan.js';
import { commonSubsequence } from './diff.js';
import { joinLines, mergeLine, readLines, sameBytes, type Line } from './lines.js';

/**
 * A three-way merge of a hand edit into the board, line by line.
 *
 * `base` is the snapshot the person edited, `mine` their copy, `theirs` the
 * board now (claims, heartbeats, finishes and adds made meanwhile). Each side
 * is diffed against the base on line keys (a line without its marker and
 * line ending), so a marker change is a change of one line in place, never a
 * delete and an insert. Then, as diff3 does, changes of one side are taken,
 * and where both sides changed overlapping base lines:
 *
 * - the same line, each side a different field (a claim on one side, a new
 *   line ending on the other): both are kept;
 * - the same result on both sides: taken once;
 * - insertions at one point and nothing else: the board's lines, then the person's;
 * - anything else: a conflict. The merge never guesses between two changes.
 *
 * A task line the person moved (deleted in one place, inserted unchanged
 * elsewhere, its key unique on both sides) takes the board's marker change
 * with it. Finally the merged document is scanned: every line must read as
 * it did on the side it came from (a task line still a task line with its
 * marker, a prose line still prose), else the merge changed what a line
 * means and that is a conflict too.
 */
export type MergeResult =
  | { ok: true; merged: ByteString; theirs: number; mine: number }
  | { ok: false; conflicts: Conflict[] };

export interface Conflict {
  /** Both sides changed these lines, or the merge would change how a line reads. */
  kind: 'both' | 'reading';
  /** Lines involved, 0-based, [start, end), in the base, the person's copy and the board now. */
  base: [number, number];
  mine: [number, number];
  theirs: [number, number];
  /** Lines of the board now that the board changed there (theirs' side of the conflict). */
  changed: number[];
}

/** base[b0, b1) became x[x0, x1) on one side; `mod` when it is one line kept with another marker or line ending. */
interface Hunk {
  side: 'mine' | 'theirs';
  b0: number;
  b1: number;
  x0: number;
  x1: number;
  mod: boolean;
}

/** A merged line, where it came from and where it sits in each side (for the reading check and for naming conflicts). */
interface Out {
  line: Line;
  from: Line;
  mine: number;
  theirs: number;
}

const BOM = '\xEF\xBB\xBF';

export function merge3(base: ByteString, mine: ByteString, theirs: ByteString): MergeResult {
  // A byte order mark belongs to the file, not to whichever line is first: merged on its own.
  const [bb, bm, bt] = [base, mine, theirs].map((s) => s.startsWith(BOM)) as [boolean, boolean, boolean];
  const bom = bm !== bb ? bm : bt;
  const B = readLines(bb ? base.slice(3) : base);
  const M = readLines(bm ? mine.slice(3) : mine);
  const T = readLines(bt ? theirs.slice(3) : theirs);
  const ids = new Map<string, number>();
  const number = (ls: Line[]) => Int32Array.from(ls, (l) => ids.get(l.key) ?? (ids.set(l.key, ids.size), ids.size - 1));
  const [nb, nm, nt] = [number(B), number(M), number(T)];
  const mineHunks = hunks('mine', B, M, commonSubsequence(nb, nm));
  let theirHunks = hunks('theirs', B, T, commonSubsequence(nb, nt));
  const conflicts: Conflict[] = [];

  // Moves: the board's change to a line follows it to where the person put it.
  const mineLines = [...M];
  const movedOut = new Set<Hunk>();
  for (const [k, m] of moves(B, M, mineHunks)) {
    const h = theirHunks.find((x) => x.b0 <= k && k < x.b1);
    if (!h) continue;
    if (!h.mod) {
      // The board deleted or rewrote the line the person moved: keeping either would drop the other.
      conflicts.push({ kind: 'both', base: [k, k + 1], mine: [m, m + 1], theirs: [h.x0, h.x1], changed: range(h.x0, h.x1) });
      continue;
    }
    const merged = mergeLine(B[k]!, M[m]!, T[h.x0]!);
    // Both changed its marker: left in place, where the person's deletion and the board's change conflict.
    if (!merged) continue;
    mineLines[m] = merged;
    movedOut.add(h);
  }
  theirHunks = theirHunks.filter((h) => !movedOut.has(h));

  const all = [...mineHunks, ...theirHunks].sort((a, b) => a.b0 - b.b0 || a.b1 - b.b1);
  const out: Out[] = [];
  let cursor = 0;
  let dm = 0; // mine index - base index, for base lines between regions
  let dt = 0;
  const stable = (to: number) => {
    for (; cursor < to; cursor++) out.push({ line: B[cursor]!, from: B[cursor]!, mine: cursor + dm, theirs: cursor + dt });
  };
  const counts = { mine: 0, theirs: 0 };
  for (let i = 0; i < all.length; ) {
    const group = [all[i++]!];
    let rs = group[0]!.b0;
    let re = group[0]!.b1;
    while (i < all.length && overlaps(rs, re, all[i]!)) {
      re = Math.max(re, all[i]!.b1);
      group.push(all[i++]!);
    }
    stable(rs);
    const ms = side(group, 'mine', rs, re, B, mineLines);
    const ts = side(group, 'theirs', rs, re, B, T);
    const at = { mine: rs + dm, theirs: rs + dt };
    const resolved = resolve(group, ms, ts, B, rs, re);
    if (resolved) {
      for (const r of resolved) out.push({ ...r, mine: at.mine, theirs: at.theirs });
      for (const h of group) counts[h.side]++;
    } else {
      const changed = group.filter((h) => h.side === 'theirs').flatMap((h) => range(h.x0, h.x1));
      conflicts.push({ kind: 'both', base: [rs, re], mine: [at.mine, at.mine + ms.length], theirs: [at.theirs, at.theirs + ts.length], changed });
    }
    dm += ms.length - (re - rs);
    dt += ts.length - (re - rs);
    cursor = re;
  }
  stable(B.length);
  if (conflicts.length > 0) return { ok: false, conflicts: dedupe(conflicts) };

  const merged = joinLines(out.map((o) => o.line));
  const misread = misreadLines(merged, out);
  if (misread.length > 0) {
    return {
      ok: false,
      conflicts: misread.map((o) => ({ kind: 'reading', base: [-1, -1], mine: [o.mine, o.mine + 1], theirs: [o.theirs, o.theirs + 1], changed: [] })),
    };
  }
  return { ok: true, merged: (bom ? BOM : '') + merged, ...counts };
}

/** The hunks of one side's diff: runs of unmatched lines, and matched lines whose bytes differ (a marker or line ending changed). */
function hunks(side: Hunk['side'], base: Line[], other: Line[], pairs: Array<[number, number]>): Hunk[] {
  const out: Hunk[] = [];
  let pb = 0;
  let px = 0;
  for (const [i, j] of [...pairs, [base.length, other.length] as [number, number]]) {
    if (i > pb || j > px) out.push({ side, b0: pb, b1: i, x0: px, x1: j, mod: false });
    if (i < base.length && !sameBytes(base[i]!, other[j]!)) out.push({ side, b0: i, b1: i + 1, x0: j, x1: j + 1, mod: true });
    pb = i + 1;
    px = j + 1;
  }
  return out;
}

/** Task lines the person moved: deleted from one place, inserted elsewhere with the same key, that key once among each. */
function moves(base: Line[], mine: Line[], hs: Hunk[]): Array<[number, number]> {
  const gone = new Map<string, number[]>();
  const added = new Map<string, number[]>();
  for (const h of hs) {
    if (h.mod) continue;
    for (let k = h.b0; k < h.b1; k++) if (base[k]!.marker) push(gone, base[k]!.key, k);
    for (let m = h.x0; m < h.x1; m++) if (mine[m]!.marker) push(added, mine[m]!.key, m);
  }
  const out: Array<[number, number]> = [];
  for (const [key, ks] of gone) {
    const ms = added.get(key);
    if (ks.length === 1 && ms?.length === 1) out.push([ks[0]!, ms[0]!]);
  }
  return out;
}

/**
 * Do two changes touch the same base lines? Ranges overlap when they share a
 * line; an insertion overlaps a change only strictly inside it (at either
 * edge it goes before or after), and another insertion at the same point.
 */
function overlaps(rs: number, re: number, h: Hunk): boolean {
  if (rs === re) return h.b0 === rs && h.b1 === rs;
  if (h.b0 === h.b1) return h.b0 > rs && h.b0 < re;
  return h.b0 < re;
}

/** One side's lines for the base range [rs, re): its hunks there, base lines between them. */
function side(group: Hunk[], which: Hunk['side'], rs: number, re: number, base: Line[], lines: Line[]): Line[] {
  const out: Line[] = [];
  let at = rs;
  for (const h of group) {
    if (h.side !== which) continue;
    out.push(...base.slice(at, h.b0), ...lines.slice(h.x0, h.x1));
    at = h.b1;
  }
  out.push(...base.slice(at, re));
  return out;
}

/** The merged lines of a region, or null for a conflict. */
function resolve(group: Hunk[], ms: Line[], ts: Line[], base: Line[], rs: number, re: number): Array<{ line: Line; from: Line }> | null {
  const sides = new Set(group.map((h) => h.side));
  const as = (ls: Line[]) => ls.map((l) => ({ line: l, from: l }));
  if (!sides.has('theirs')) return as(ms);
  if (!sides.has('mine')) return as(ts);
  if (group.length === 2 && group.every((h) => h.mod) && re - rs === 1) {
    const line = mergeLine(base[rs]!, ms[0]!, ts[0]!);
    return line ? [{ line, from: base[rs]! }] : null;
  }
  if (ms.length === ts.length && ms.every((l, k) => sameBytes(l, ts[k]!))) return as(ts);
  if (rs === re) return as([...ts, ...ms]);
  return null;
}

/** Merged lines that do not read as they did where they came from: a task line no longer a task with its marker, or prose become a task. */
function misreadLines(merged: ByteString, out: Out[]): Out[] {
  const marker = new Map<number, number>();
  for (const t of scanTasks(merged)) marker.set(t.line - 1, t.markerStart);
  const bad: Out[] = [];
  let at = 0;
  out.forEach((o, i) => {
    const want = o.from.marker ? at + o.from.marker[0] : undefined;
    if (marker.get(i) !== want) bad.push(o);
    at += o.line.content.length + o.line.eol.length;
  });
  return bad;
}

function dedupe(conflicts: Conflict[]): Conflict[] {
  const seen = new Set<string>();
  return conflicts.filter((c) => {
    const key = `${c.base}|${c.theirs}`;
    return !seen.has(key) && !!seen.add(key);
  });
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
