import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { add } from '../src/board/add.js';
import { merge3 } from '../src/file/merge.js';
import { applyEditsToBuffer } from '../src/format/edit.js';
import { toByteString } from '../src/format/bytes.js';
import { parseTasks } from '../src/index.js';

const b = (s: string) => toByteString(s);
const text = (s: string) => Buffer.from(s, 'latin1').toString('utf8');
const CLAIM = '[🟡, w1, 2026-11-30T04:06:29Z]';

/** Merge UTF-8 strings; the merged board back as a string, or the conflicts. */
function merge(base: string, mine: string, theirs: string) {
  const r = merge3(b(base), b(mine), b(theirs));
  return r.ok ? { ok: true as const, merged: text(r.merged) } : r;
}

describe('merge3 on hand-picked edits', () => {
  const base = '# Board\n\nSome prose.\n- [ ] a\n- [ ] b\n- [ ] c\n';
  const claimedB = base.replace('[ ] b', CLAIM + ' b');

  it('keeps a claim made meanwhile and the prose and task the person added', () => {
    const mine = base.replace('Some prose.', 'Other prose.') + '- [ ] d\n';
    expect(merge(base, mine, claimedB)).toEqual({ ok: true, merged: mine.replace('[ ] b', CLAIM + ' b') });
  });

  it('keeps the claim on a task the person moved', () => {
    const mine = '# Board\n\nSome prose.\n- [ ] c\n- [ ] a\n- [ ] b\n';
    for (const theirs of [claimedB, base.replace('[ ] c', CLAIM + ' c'), base.replace('[ ] a', CLAIM + ' a')]) {
      const r = merge(base, mine, theirs);
      const claimed = parseTasks(theirs).find((t) => t.status === 'claimed')!;
      expect(r.ok && parseTasks(r.merged).map((t) => [t.text, t.status])).toEqual(
        ['c', 'a', 'b'].map((x) => [x, x === claimed.text ? 'claimed' : 'open']),
      );
    }
  });

  it('lets a person add a task between two tasks claimed meanwhile', () => {
    const theirs = base.replace('[ ] a', CLAIM + ' a').replace('[ ] b', CLAIM.replace('w1', 'w2') + ' b');
    const mine = base.replace('- [ ] b', '- [ ] new\n- [ ] b');
    expect(merge(base, mine, theirs)).toEqual({ ok: true, merged: theirs.replace('- [🟡, w2', '- [ ] new\n- [🟡, w2') });
  });

  it('keeps a claim when the person only changed line endings or the final newline', () => {
    const crlf = base.replace(/\n/g, '\r\n').slice(0, -2);
    const theirs = crlf.replace('[ ] c', CLAIM + ' c');
    expect(merge(crlf, base, theirs)).toEqual({ ok: true, merged: base.replace('[ ] c', CLAIM + ' c') });
  });

  it('keeps a BOM exactly', () => {
    const bom = '\uFEFF' + base;
    expect(merge(bom, bom + '- [ ] d\n', bom.replace('[ ] a', CLAIM + ' a'))).toEqual({ ok: true, merged: bom.replace('[ ] a', CLAIM + ' a') + '- [ ] d\n' });
  });

  it.each([
    ['edits the text of', base.replace('] b', '] bee')],
    ['deletes', base.replace('- [ ] b\n', '')],
    ['reopens by hand, with another marker,', base.replace('[ ] b', '[x] b')],
    ['moves and edits', base.replace('- [ ] b\n', '').replace('- [ ] a', '- [ ] bee\n- [ ] a')],
    ['wraps in a code fence', base.replace('- [ ] a', '```\n- [ ] a').replace('- [ ] c', '- [ ] c\n```')],
  ])('reports a conflict, naming the board line, when the person %s a task claimed meanwhile', (_what, mine) => {
    const r = merge(base, mine, claimedB);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.conflicts.some((c) => c.changed.includes(4))).toBe(true);
  });

  it('takes a marker typed by hand when the board left that task alone', () => {
    const mine = base.replace('[ ] a', '[🟡, alice]').replace('[ ] c', '[✅ abc123, bob]');
    expect(merge(base, mine, claimedB)).toEqual({ ok: true, merged: mine.replace('[ ] b', CLAIM + ' b') });
  });

  it('takes the same change made on both sides once', () => {
    expect(merge(base, claimedB, claimedB)).toEqual({ ok: true, merged: claimedB });
  });

  it('keeps both when the board and the person appended at the end, the board first', () => {
    const r = merge(base, base + '- [ ] mine\n', base + '- [ ] added\n');
    expect(r).toEqual({ ok: true, merged: base + '- [ ] added\n- [ ] mine\n' });
  });

  it('reports a conflict when the merge would change how a claimed line reads', () => {
    // Each side alone leaves `a` a task; together the person's <div> and the board's removed blank line make it HTML.
    const base2 = 'P\n\n[ ] a\n';
    const r = merge(base2, '<div>\n' + base2, `P\n${CLAIM} a\n`);
    expect(r).toMatchObject({ ok: false, conflicts: [{ kind: 'reading', theirs: [1, 2] }] });
  });

  it('gives the other side back when one side is the base, byte for byte', () => {
    const weird = '\uFEFF# x\r\n[ ] a\r- [ ] b\n\n```\n[ ] code\n```\n- [ ] c';
    const changed = weird.replace('[ ] a', CLAIM + ' a');
    expect(merge(weird, weird, changed)).toEqual({ ok: true, merged: changed });
    expect(merge(weird, changed, weird)).toEqual({ ok: true, merged: changed });
  });
});

// ---- The property: random boards, random claimer marker changes, random hand edits. ----

type Item = { kind: 'p'; text: string } | { kind: 't'; uid: number; prefix: string; marker: string; text: string };
interface Doc {
  items: Item[];
  eol: string;
  final: boolean;
  bom: boolean;
}

const MARKERS = ['[ ]', '[]', '[x]', '[⏰]', CLAIM, '[🟡, w2, 2026-11-30T05:00:00Z]', '[✅ abc1234, w3]', '[❌, w4]', '[🟡, ann]'];
// Prose that never changes how a neighbouring line reads (no fences, quotes, setext underlines or indented code).
const PROSE = ['', '', '# Board', '## Git Worktree wt-1', 'Some prose.', 'More prose, {not a tag}.', '* a plain list item'];
const PREFIXES = ['', '- ', '* ', '  - '];

function render(d: Doc): string {
  const lines = d.items.map((i) => (i.kind === 'p' ? i.text : `${i.prefix}${i.marker} ${i.text}`));
  return (d.bom ? '\uFEFF' : '') + lines.join(d.eol) + (d.final && lines.length > 0 ? d.eol : '');
}

const item = fc.oneof(
  fc.record({ kind: fc.constant('p' as const), text: fc.constantFrom(...PROSE) }),
  fc.record({ kind: fc.constant('t' as const), uid: fc.constant(0), prefix: fc.constantFrom(...PREFIXES), marker: fc.constantFrom(...MARKERS), text: fc.constant('') }),
);
const doc = fc.record({ items: fc.array(item, { minLength: 1, maxLength: 16 }), eol: fc.constantFrom('\n', '\r\n'), final: fc.boolean(), bom: fc.boolean() }).map((d) => {
  let uid = 0;
  const items = d.items.map((i): Item => (i.kind === 't' ? { ...i, uid: ++uid, text: `task ${uid}${uid % 3 ? '' : ' {tag}'}` } : i));
  return { ...d, items };
});
const op = fc.oneof(
  fc.record({ op: fc.constantFrom('editProse', 'addProse', 'editText', 'delete'), i: fc.nat(), at: fc.nat() }),
  fc.record({ op: fc.constant('addTask'), at: fc.nat(), prefix: fc.constantFrom(...PREFIXES), marker: fc.constantFrom(...MARKERS) }),
  fc.record({ op: fc.constant('editMarker'), i: fc.nat(), marker: fc.constantFrom(...MARKERS) }),
  fc.record({ op: fc.constant('move'), i: fc.nat(), at: fc.nat() }),
);
type Op = { op: string; i?: number; at?: number; prefix?: string; marker?: string };

/** The person's edits, applied to the model; what each base task went through. */
function edit(base: Doc, ops: Op[], eol: string, final: boolean) {
  const items = base.items.map((i) => ({ ...i }));
  let fresh = 1000;
  const tasks = () => items.filter((i): i is Extract<Item, { kind: 't' }> => i.kind === 't');
  for (const o of ops) {
    const prose = items.filter((i) => i.kind === 'p');
    if (o.op === 'editProse' && prose.length > 0) (prose[o.i! % prose.length] as { text: string }).text = `edited prose ${fresh++}`;
    else if (o.op === 'addProse') items.splice(o.at! % (items.length + 1), 0, { kind: 'p', text: `new prose ${fresh++}` });
    else if (o.op === 'addTask') items.splice(o.at! % (items.length + 1), 0, { kind: 't', uid: fresh, prefix: o.prefix!, marker: o.marker!, text: `new task ${fresh++}` });
    else if (o.op === 'delete' && items.length > 0) {
      items.splice(o.i! % items.length, 1);
    } else if (tasks().length > 0) {
      const t = tasks()[o.i! % tasks().length]!;
      if (o.op === 'editText') t.text += ' v2';
      else if (o.op === 'editMarker') t.marker = o.marker!;
      else if (o.op === 'move') {
        items.splice(items.indexOf(t), 1);
        items.splice(o.at! % (items.length + 1), 0, t);
      }
    }
  }
  // What the person did to each base task, judged by the end state (an edit undone is no edit).
  const touched = new Map<number, string>();
  for (const was of base.items) {
    if (was.kind !== 't') continue;
    const now = tasks().find((t) => t.uid === was.uid);
    const what = !now ? 'deleted' : now.text !== was.text ? 'text' : now.marker !== was.marker ? 'marker' : undefined;
    if (what) touched.set(was.uid, what);
  }
  return { doc: { ...base, items, eol, final }, touched };
}

/** The claimer's side: marker changes only, on base tasks; which tasks now carry another marker. */
function claim(base: Doc, claims: Array<[number, string]>) {
  const theirs: Doc = { ...base, items: base.items.map((i) => ({ ...i })) };
  const tasks = theirs.items.filter((i) => i.kind === 't');
  const changedBy = new Map<number, string>();
  for (const [n, marker] of claims) {
    const t = tasks[n % Math.max(1, tasks.length)];
    if (!t) continue;
    const was = (base.items.find((i) => i.kind === 't' && i.uid === t.uid) as { marker: string }).marker;
    t.marker = marker;
    if (marker === was) changedBy.delete(t.uid);
    else changedBy.set(t.uid, marker);
  }
  return { theirs, changedBy };
}

/** Tasks the claimer and the person both changed (the same new marker on both sides is one change). */
function touchedByBoth(changedBy: Map<number, string>, mine: ReturnType<typeof edit>): number[] {
  return [...changedBy].flatMap(([uid, marker]) => {
    const what = mine.touched.get(uid);
    const now = mine.doc.items.find((i) => i.kind === 't' && i.uid === uid) as { marker: string } | undefined;
    return what === undefined || (what === 'marker' && now!.marker === marker) ? [] : [uid];
  });
}

/** The person's document with the claimer's markers on the tasks it changed. */
function expected(mine: Doc, changedBy: Map<number, string>): Doc {
  return { ...mine, items: mine.items.map((i) => (i.kind === 't' && changedBy.has(i.uid) ? { ...i, marker: changedBy.get(i.uid)! } : i)) };
}

const claims = fc.array(fc.tuple(fc.nat(), fc.constantFrom(...MARKERS)), { maxLength: 6 });

describe('merge3 on generated boards', () => {
  it('keeps every claimer marker and every hand edit, or reports a conflict only where both changed one task', () => {
    let merged = 0;
    let conflicted = 0;
    fc.assert(
      fc.property(
        doc,
        claims,
        fc.array(op, { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        (base, claims, ops, eol, final) => {
          const baseTasks = base.items.filter((i) => i.kind === 't');
          expect(parseTasks(render(base))).toHaveLength(baseTasks.length); // the generator makes what it means to
          const { theirs, changedBy } = claim(base, claims);
          const mine = edit(base, ops, eol, final);
          const both = touchedByBoth(changedBy, mine);
          const r = merge(render(base), render(mine.doc), render(theirs));
          if (both.length > 0) {
            expect(r.ok).toBe(false);
            conflicted++;
            return;
          }
          expect(r).toEqual({ ok: true, merged: render(expected(mine.doc, changedBy)) });
          merged++;
        },
      ),
      { numRuns: 3000 },
    );
    // Both outcomes must be exercised for this to prove anything.
    expect(merged).toBeGreaterThan(1000);
    expect(conflicted).toBeGreaterThan(100);
  });

  it('also keeps the tasks mdclaim add appended meanwhile, or reports a conflict', () => {
    let merged = 0;
    fc.assert(
      fc.property(doc, claims, fc.array(op, { maxLength: 8 }), fc.integer({ min: 1, max: 3 }), (base0, cs, ops, adds) => {
        const base = { ...base0, final: true };
        const { theirs, changedBy } = claim(base, cs);
        let board = b(render(theirs));
        const blocks: string[][] = []; // the lines each add inserted (its task, and any blank line setting it apart)
        for (let n = 1; n <= adds; n++) {
          const change = add(board, `added ${n}`);
          board = applyEditsToBuffer(Buffer.from(board, 'latin1'), change.edits).toString('latin1');
          const lines = text(change.edits[0]!.bytes).split(base.eol);
          if (lines.at(-1) === '') lines.pop();
          blocks.push(lines);
        }
        const mine = edit(base, ops, base.eol, true);
        const r = merge(render(base), render(mine.doc), text(board));
        if (touchedByBoth(changedBy, mine).length > 0) return void expect(r.ok).toBe(false);
        if (!r.ok) return;
        merged++;
        const bom = r.merged.startsWith('\uFEFF') ? '\uFEFF' : '';
        const lines = r.merged.slice(bom.length).split(base.eol);
        // Without the added tasks it is the person's board with the claimer's markers. (Where an add also
        // inserted a blank line beside blank lines, which of them is "the new one" is not defined: count them.)
        const want = render(expected(mine.doc, changedBy));
        const added = blocks.flat();
        const blank = (ls: string[]) => ls.filter((l) => l === '').length;
        const prose = (ls: string[]) => ls.filter((l) => l !== '' && !/ added \d$/.test(l));
        expect(lines.filter((l) => / added \d$/.test(l))).toEqual(added.filter((l) => l !== ''));
        expect(bom + prose(lines).join(base.eol)).toBe(want.startsWith('\uFEFF') ? '\uFEFF' + prose(want.slice(1).split(base.eol)).join(base.eol) : prose(want.split(base.eol)).join(base.eol));
        expect(blank(lines)).toBe(blank(want.replace(/^\uFEFF/, '').split(base.eol)) + blank(added));
      }),
      { numRuns: 2000 },
    );
    expect(merged).toBeGreaterThan(1000);
  });
});
