import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MdclaimError, openBoard, PgBoard, type Task, type TaskBoard } from '../src/index.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';

// The PostgreSQL board keeps state the file board works out on every read
// (migration 5): each row's line base (mdclaim.task_line, plus the lock lines
// above it from mdclaim.path_lock) and a [⏰] row's readiness (mdclaim.rebase
// at import and add, a trigger when a task becomes done or stops being done).
// So the same board, loaded into both and driven by the same operations, must
// answer alike after every one: a wrong kept line shows in a result's `line`,
// a wrong readiness in what `next` and `claim` hand out.
//
// Seen to catch, each rule broken on purpose in src/pg and then restored (50 cases, a counterexample
// shrunk to a few tasks and operations within 5–50 s): mdclaim.refresh_ready returning at once (a
// [⏰] never readied by a done above it); the trigger firing only on becoming done, not on a reopen
// (a [⏰] still handed out after the task above it is reopened); add.ts not calling mdclaim.rebase (an
// added task's line); the kept line (then mdclaim.line_of) not counting the lock lines above a task; rebase without the lead's
// line breaks; rebase reading readiness over the whole board instead of each section's run. Not
// reliably caught: refresh_ready ignoring another section's run between a [⏰] and the last
// unfinished task of its own section above it (the case needs a section, a finished one, the first
// again with a claim right above a [⏰]; the boards lean that way but rarely get there in 50 cases).

/** Claim times in the generated boards are relative to the start of the file (the claims stay live, or lapsed, for its run). */
const T0 = Math.floor(Date.now() / 1000) * 1000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const HOLDERS = ['a1', 'a2', 'a3'] as const;
const SECTIONS = ['Alpha', 'Beta', 'Gamma'] as const;

// A task line's marker and the rest of its line; claimed ones live (1h lease, or the default 30m
// while recent) or lapsed (2h old at the default lease), some with lock lines written as mdclaim writes them.
type Kind = 'open' | 'blocked' | 'done' | 'failed' | 'live' | 'live30' | 'lapsed';
// Done tasks are common, so that a [⏰] is often one finished claim (or one claim and its finish) from ready.
const kind = fc.constantFrom<Kind>('open', 'blocked', 'blocked', 'blocked', 'done', 'done', 'done', 'done', 'done', 'failed', 'live', 'live', 'live30', 'lapsed');
const item = fc.record({
  kind,
  done: fc.constantFrom('[x]', '[X]', '[✅ abc1234, w1]', '[✅, w2]'),
  failed: fc.constantFrom('[❌, w2]', '[❌]'),
  holder: fc.constantFrom(...HOLDERS),
  locks: fc.constantFrom(0, 0, 0, 1, 2),
  dup: fc.constantFrom(false, false, false, false, false, false, true),
  after: fc.constantFrom('', '', '', '', 'blank', 'note', 'detail', 'comment'),
});
const section = fc.record({
  // Alpha and Beta most: a name that comes back after another section starts a run of its own.
  name: fc.constantFrom<(typeof SECTIONS)[number]>('Alpha', 'Alpha', 'Beta', 'Beta', 'Gamma'),
  // Its tasks as drawn; or all done (a [⏰] below it whose section comes back after it waits only on its own run);
  // or a chain of claims and [⏰] tasks, each [⏰] ready once the claim above it is done.
  shape: fc.constantFrom('mixed', 'mixed', 'finished', 'chain'),
  bullet: fc.constantFrom('- ', '- ', '* ', ''),
  items: fc.array(item, { minLength: 3, maxLength: 12 }),
});
// Half the boards alternate Alpha and Beta, so that a section's second run comes right after another's.
const boardSpec = fc
  .tuple(fc.array(section, { minLength: 2, maxLength: 4 }), fc.boolean())
  .map(([ss, alternate]) => (alternate ? ss.map((x, k) => ({ ...x, name: k % 2 === 0 ? ('Alpha' as const) : ('Beta' as const) })) : ss));

/** The document a spec describes: sections (a name may come back: its second run is a section run of its own) of task lines and notes. */
function documentOf(spec: fc.Infer<typeof boardSpec>): string {
  const out = ['# Board', ''];
  const texts: string[] = [];
  let path = 0;
  for (const s of spec) {
    out.push(`## ${s.name}`, '');
    for (const [n, item] of s.items.entries()) {
      const it = s.shape === 'mixed' ? item : { ...item, kind: s.shape === 'finished' ? 'done' : n % 2 === 0 ? 'live' : 'blocked' };
      const text = it.dup && texts.length > 0 ? texts[texts.length - 1]! : `task ${texts.length + 1}`;
      texts.push(text);
      const marker = {
        open: '[ ]',
        blocked: '[⏰]',
        done: it.done,
        failed: it.failed,
        live: `[🟡, ${it.holder}, ${iso(T0 - 5 * 60_000)}, 1h]`,
        live30: `[🟡, ${it.holder}, ${iso(T0 - 60_000)}]`,
        lapsed: `[🟡, ${it.holder}, ${iso(T0 - 2 * 3_600_000)}]`,
      }[it.kind];
      out.push(`${s.bullet}${marker} ${text}${it.kind === 'failed' ? ' // Failed: r' : ''}`);
      // Locks under a claim, or left under an open task by a hand edit: the next claim takes them away.
      if (it.kind === 'live' || it.kind === 'live30' || it.kind === 'lapsed' || it.kind === 'open') {
        for (let k = 0; k < it.locks; k++) out.push(`  - 🔒 ${k === 0 ? 'write' : 'read'} src/f${path++}.ts since ${iso(T0 - 60_000)}`);
      }
      const after = { '': null, blank: '', note: 'A note between tasks.', detail: '  an indented detail line', comment: '<!-- note -->' }[it.after];
      if (after !== null) out.push(after);
    }
    out.push('');
  }
  return out.join('\n');
}

// Operations pick their task (and, for the holder's verbs, usually its holder) from the board's own list when they run,
// mostly among the tasks the verb is about: claims of [⏰] tasks ask the readiness rule on every try, and finishing
// claimed ones and reopening finished ones is what changes it.
type Focus = 'any' | 'blocked' | 'claimed' | 'finished';
type Op =
  | { op: 'next'; who: number }
  | { op: 'claim' | 'done' | 'fail' | 'release' | 'reopen'; focus: Focus; pick: number; who: number }
  | { op: 'add'; section: number; dup: boolean };
const who = fc.nat(7);
const pick = fc.nat(1000);
const verb = (name: 'claim' | 'done' | 'fail' | 'release' | 'reopen', focus: Focus) =>
  fc.record({ op: fc.constant(name), focus: fc.constantFrom<Focus>(focus, focus, focus, 'any'), pick, who });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('next' as const), who }), weight: 3 },
  { arbitrary: verb('claim', 'blocked'), weight: 4 },
  { arbitrary: verb('done', 'claimed'), weight: 5 },
  { arbitrary: verb('fail', 'claimed'), weight: 1 },
  { arbitrary: verb('release', 'claimed'), weight: 1 },
  { arbitrary: verb('reopen', 'finished'), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), section: fc.nat(SECTIONS.length + 1), dup: fc.boolean() }), weight: 2 },
);
const ops = fc.array(op, { minLength: 5, maxLength: 25 });

/** What both boards must agree on for a task. */
const view = (t: Task) => ({ id: t.id, text: t.text, line: t.line, status: t.status, by: t.by ?? null });

/** An operation's outcome: the task it returned (null for `next` with nothing to take), or the code it failed with. */
async function outcome(p: Promise<Task | null>): Promise<unknown> {
  try {
    const t = await p;
    return t === null ? null : view(t);
  } catch (err) {
    if (err instanceof MdclaimError) return { error: err.code };
    throw err;
  }
}

/** Run op on a board, its task and holder chosen from `tasks` (the list both boards agree on). */
function apply(b: TaskBoard, o: Op, tasks: readonly Task[], added: number): Promise<Task | null> {
  const holder = (n: number) => HOLDERS[n % HOLDERS.length]!;
  if (o.op === 'next') return b.next({ by: holder(o.who) });
  if (o.op === 'add') {
    const text = o.dup && tasks.length > 0 ? tasks[o.section % tasks.length]!.text : `added ${added}`;
    const name = o.section < SECTIONS.length ? SECTIONS[o.section] : o.section === SECTIONS.length ? 'Zeta' : undefined;
    return b.add(text, name === undefined ? {} : { section: name });
  }
  const about = tasks.filter((t) => o.focus === 'any' || (o.focus === 'finished' ? t.status === 'done' || t.status === 'failed' : t.status === o.focus));
  // Half the time, the tasks where readiness turns: a [⏰] at most one unfinished task from ready (to claim), the one
  // unfinished task a [⏰] waits on (to finish), a done task above a ready [⏰] (to reopen).
  const turning = about.filter((t) => {
    const i = tasks.indexOf(t);
    if (o.focus === 'blocked') return waitsOn(tasks, i).length <= 1;
    return tasks.some((b, j) => j > i && b.status === 'blocked' && (o.focus === 'claimed'
      ? waitsOn(tasks, j).length === 1 && waitsOn(tasks, j)[0] === t
      : t.status === 'done' && waitsOn(tasks, j).length === 0 && runOf(tasks, j).includes(t)));
  });
  const from = [turning, about, tasks].find((l) => l.length > 0 && (l !== turning || o.pick % 2 === 0))!;
  const t = from[o.pick % from.length]!;
  // Mostly the task's own holder, sometimes someone else (a refusal both must give alike).
  const by = t.by !== undefined && o.who < 6 ? t.by : holder(o.who);
  switch (o.op) {
    case 'claim':
      return b.claim(t.id, { by });
    case 'done':
      return b.done(t.id, { by });
    case 'fail':
      return b.fail(t.id, { by, reason: 'boom' });
    case 'release':
      return b.release(t.id, { by });
    case 'reopen':
      return b.reopen(t.id);
  }
}

/** The tasks of task i's section run above it: back to the last task of another section (as the file board walks). */
function runOf(tasks: readonly Task[], i: number): Task[] {
  let k = i;
  while (k > 0 && tasks[k - 1]!.section === tasks[i]!.section) k--;
  return tasks.slice(k, i);
}

/** What a [⏰] at i waits on: the tasks of its run above it not done. */
function waitsOn(tasks: readonly Task[], i: number): Task[] {
  return runOf(tasks, i).filter((t) => t.status !== 'done');
}

/** A claim time written during the case comes from each board's own clock: the same second or the next, so compare it as "now". */
function settled(doc: Buffer, since: number): string {
  return doc.toString('utf8').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, (s) => (Date.parse(s) >= since ? '<now>' : s));
}

describe.skipIf(!pgReachable)(pgTitle('the PostgreSQL board’s kept lines and [⏰] readiness'), () => {
  // The smallest case the property above found (bare task lines, a lock line under one, then add). The file
  // board's add sees the lock line, a list item, and sets the new bare line apart from it with a blank line;
  // the PostgreSQL board runs that add over its rows without their lock lines (they live in mdclaim.path_lock),
  // so it writes no blank line: the new task's line and the exported bytes differ from the file's.
  it('adds under a bare task line with a lock line as the file board does', async () => {
    const doc = `## A\n\n[ ] one\n  - 🔒 write src/f0.ts since ${iso(T0 - 60_000)}\n`;
    const path = boardFile(doc);
    const file = openBoard(path);
    const name = uniqueBoard('kept');
    const pg = new PgBoard(boardUrl(name), { pool: 1 });
    try {
      await pg.importDocument(Buffer.from(doc));
      const want = view(await file.add('two', { section: 'A' }));
      expect(view(await pg.add('two', { section: 'A' }))).toEqual(want);
      expect((await pg.exportDocument()).toString('utf8')).toBe(readFileSync(path, 'utf8'));
    } finally {
      await pg.close();
      await file.close();
      await dropBoards([name]);
    }
  });

  it('answer every operation as the file board does, on generated boards and operation sequences', { timeout: 900_000 }, async () => {
    let readied = 0;
    await fc.assert(
      fc.asyncProperty(boardSpec, ops, async (spec, sequence) => {
        const doc = documentOf(spec);
        const path = boardFile(doc);
        const file = openBoard(path);
        const name = uniqueBoard('kept');
        const pg = new PgBoard(boardUrl(name), { pool: 1 });
        const since = Date.now() - 2000;
        try {
          await pg.importDocument(Buffer.from(doc));
          let tasks = await file.list();
          expect((await pg.list()).map(view)).toEqual(tasks.map(view));
          for (const [i, o] of sequence.entries()) {
            const want = await outcome(apply(file, o, tasks, i));
            const got = await outcome(apply(pg, o, tasks, i));
            expect(got, `operation ${i} ${JSON.stringify(o)}`).toEqual(want);
            // A [⏰] handed out: the readiness rule was exercised, not only the open tasks.
            if (o.op !== 'add' && tasks.some((t) => t.status === 'blocked' && want !== null && typeof want === 'object' && 'id' in want && t.id === want.id)) readied++;
            tasks = await file.list();
            expect((await pg.list()).map(view), `list after operation ${i} ${JSON.stringify(o)}`).toEqual(tasks.map(view));
          }
          expect(settled(await pg.exportDocument(), since)).toBe(settled(readFileSync(path), since));
        } finally {
          await pg.close();
          await file.close();
          await dropBoards([name]);
        }
      }),
      { numRuns: 50 },
    );
    // The generator must reach the rule under test: claims of [⏰] tasks that became ready.
    expect(readied).toBeGreaterThan(0);
  });
});
