import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard, parseTasks, type Task } from '../src/index.js';
import { CLI } from './helpers/cli.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';

// import then export gives the file back byte for byte, on real boards and generated ones.

const CORPUS = process.env['MDCLAIM_CORPUS'] ?? join(import.meta.dirname, '../../shared/corpus');
const corpus = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.md')).sort() : [];
if (corpus.length === 0) console.warn(`skipping the corpus round trips: no boards in ${CORPUS}`);

const names: string[] = [];
const boards: PgBoard[] = [];
afterAll(async () => {
  await Promise.all(boards.map((b) => b.close()));
  await dropBoards(names);
});

function fresh(): PgBoard {
  const name = uniqueBoard('x');
  names.push(name);
  const b = new PgBoard(boardUrl(name));
  boards.push(b);
  return b;
}

/** What both boards must agree on; a NUL in a heading or reason comes back as U+FFFD (PostgreSQL text holds none; the bytes keep it). */
function view(tasks: Task[]): unknown[] {
  const nul = (s: string | undefined) => s?.replaceAll('\u0000', '\uFFFD');
  return tasks.map((t) => [t.id, t.text, t.line, t.status, t.by, t.claimedAt, t.lease, t.expiresAt, t.commit, nul(t.reason), nul(t.section), t.tags]);
}

describe.skipIf(!pgReachable)(pgTitle('import and export on the PostgreSQL board'), () => {
  it.skipIf(corpus.length === 0)('give every corpus board back byte for byte, and list what the file board lists', async () => {
    for (const f of corpus) {
      const doc = readFileSync(join(CORPUS, f));
      const b = fresh();
      await b.importDocument(doc);
      expect((await b.exportDocument()).equals(doc), f).toBe(true);
      expect(view(await b.list()), f).toEqual(view(parseTasks(doc)));
      await b.close();
    }
  });

  // Headings, prose, fences, comments, quotes, front matter, odd bytes: everything a board may hold outside its markers.
  const line = fc.oneof(
    fc.constantFrom('# Title', '## Git Worktree wt-1', 'Setext', '===', 'Some prose.', '', '```', '~~~', '<!-- note', '-->', '> - [ ] quoted', '---', '| [ ] | b |', '    - [ ] code', '[ref]: /url "t"', '\u0000nul', '\xff\xfe not utf-8', 'lone\rcr'),
    fc
      .tuple(
        fc.constantFrom('', '- ', '* ', '+ ', '1. ', '2) ', '  - ', '\t- ', '   '),
        fc.constantFrom('[ ]', '[]', '[x]', '[X]', '[⏰]', '[⏰️]', '[✅ abc1234, w1]', '[✅,w1]', '[❌, w2]', '[🟡, w3, 2026-11-30T04:06:29Z]', '[🟡,adw]', '[🟡]', '[🟡, w4, 2026-11-30T04:06:29+02:00]'),
        fc.constantFrom(' fix the parser', ' ünïcödé 🚀 {opus}', ' tagged {a, b}', '  two spaces  \t', ' PLAT-7 keyed', ' same', ' x // Failed: why', ''),
      )
      .map(([p, m, t]) => p + m + t),
  );
  const doc = fc
    .tuple(fc.array(line, { minLength: 0, maxLength: 16 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), fc.boolean(), fc.boolean())
    .map(([lines, eol, final, bom, front]) => Buffer.from((bom ? '\uFEFF' : '') + (front ? `---${eol}a: 1${eol}---${eol}` : '') + lines.join(eol) + (final ? eol : ''), 'latin1'));

  it('give generated boards back byte for byte, and again after every open task is claimed and released', async () => {
    let tasks = 0;
    await fc.assert(
      fc.asyncProperty(doc, async (bytes) => {
        // latin1 above keeps the odd bytes odd; the emoji lines must be UTF-8.
        const text = Buffer.from(bytes.toString('latin1').replace(/[^\x00-\xff]/g, ''), 'latin1');
        const mixed = Buffer.concat([text, Buffer.from('\n- [ ] ünïcödé {tag}\n- [⏰] later', 'utf8')]);
        for (const input of [text, mixed]) {
          const b = fresh();
          await b.importDocument(input);
          expect((await b.exportDocument()).equals(input)).toBe(true);
          expect(view(await b.list())).toEqual(view(parseTasks(input)));
          const claimed: Task[] = [];
          for (let t = await b.next({ by: 'rt' }); t; t = await b.next({ by: 'rt' })) claimed.push(t);
          for (const t of claimed) await b.release(t.id, { by: 'rt', claimedAt: t.claimedAt! });
          tasks += claimed.length;
          const back = await b.exportDocument();
          await b.close();
          // Released claims come back open, as they were (`[ ]` for any other marker): every byte else is as imported.
          expect(back.toString('latin1')).toBe(rewriteClaimable(input));
        }
      }),
      { numRuns: 60 },
    );
    // The generator must give tasks to claim for the round trip to prove anything: 60 runs claim
    // 59–83 tasks in all (measured), so half of that is a floor no honest run misses.
    expect(tasks).toBeGreaterThan(30);
  });

  it('keeps NUL bytes in headings and task text, which PostgreSQL text cannot hold', async () => {
    const doc = Buffer.from('\u0000nul\n===\n- [ ] a\u0000b {t}\n', 'utf8');
    const b = fresh();
    await b.importDocument(doc);
    expect((await b.exportDocument()).equals(doc)).toBe(true);
    expect(view(await b.list())).toEqual(view(parseTasks(doc)));
    expect((await b.next({ by: 'n' }))!.text).toBe('a\u0000b {t}');
    await b.close();
  });

  it('round-trips through the CLI: mdclaim import, then mdclaim export', () => {
    const doc = Buffer.from('\uFEFF# Board\r\n\r\n- [ ] one {a}\r\n<!-- keep -->\r\n1) [x] two\r\n   [🟡,adw7] three', 'utf8');
    const file = boardFile(doc);
    const name = uniqueBoard('cli');
    names.push(name);
    const url = boardUrl(name);
    const imp = spawnSync(process.execPath, [CLI, 'import', file, '--to', url], { encoding: 'utf8' });
    expect(imp.stderr).toBe('');
    expect(imp.stdout).toMatch(/^imported 3 tasks from .* to postgres:\/\/.*board=cli_/);
    const exp = spawnSync(process.execPath, [CLI, 'export', '--file', url]);
    expect(exp.status).toBe(0);
    expect(exp.stdout.equals(doc)).toBe(true);
    // A second import of a board that has tasks is refused, unless --replace.
    const again = spawnSync(process.execPath, [CLI, 'import', file, '--to', url], { encoding: 'utf8' });
    expect([again.status, again.stderr]).toEqual([4, `error[CONFLICT]: board "${name}" already holds 3 tasks: pass --replace to overwrite it\n`]);
    expect(spawnSync(process.execPath, [CLI, 'import', file, '--to', url, '--replace']).status).toBe(0);
  });
});

describe.skipIf(!pgReachable)(pgTitle('importing a board of many slices'), () => {
  // Slices of 10,000 rows, all in one transaction: cut across a section, a claimed line and lock lines.
  // Live claims (a lapsed one holds nothing), so their paths show that the lock lines landed on the right rows.
  const now = new Date().toISOString().slice(0, 19) + 'Z';
  const lines = ['# Big', ''];
  for (let i = 1; i <= 25_000; i++) {
    if (i === 10_000) lines.push('', '## Second half', '');
    if (i % 10_000 === 1 && i > 1) lines.push(`- [🟡, w${i}, ${now}] claimed ${i} {writes: src/${i}.ts}`, `  - 🔒 write src/extra${i}.ts since ${now}`);
    else lines.push(`- [${i % 7 === 0 ? 'x' : ' '}] task ${i}`);
  }
  const doc = Buffer.from(lines.join('\n') + '\n');

  it('reports each slice as it goes in, and gives the board back byte for byte', async () => {
    const b = new PgBoard(boardUrl(uniqueBoard('big')));
    boards.push(b);
    names.push(b.location.split('board=')[1]!);
    const seen: Array<[number, number]> = [];
    const total = parseTasks(doc).length;
    await b.importDocument(doc, { onProgress: (done, all) => seen.push([done, all]) });
    expect(seen).toEqual([[10_000, total], [20_000, total], [total, total]]);
    expect((await b.exportDocument()).equals(doc)).toBe(true);
    expect(view(await b.list())).toEqual(view(parseTasks(doc)));
    expect((await b.paths()).map((h) => h.path)).toEqual(['src/10001.ts', 'src/extra10001.ts', 'src/20001.ts', 'src/extra20001.ts']);
  });

  it('shows that progress on a terminal, in place and cleared at the end, and nothing on a pipe', () => {
    const file = boardFile(doc);
    const url = boardUrl(uniqueBoard('bigcli'));
    names.push(new URL(url).searchParams.get('board')!);
    const piped = spawnSync(process.execPath, [CLI, 'import', file, '--to', url], { encoding: 'utf8' });
    expect([piped.status, piped.stderr]).toEqual([0, '']);
    const script = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} import ${JSON.stringify(file)} --to '${url}' --replace`, '/dev/null'], { encoding: 'utf8' });
    if (script.error) return void console.warn(`skipping the terminal half: no script(1) (${script.error.message})`);
    const total = parseTasks(doc).length;
    expect(script.stdout).toContain(`\r\x1b[Kimporting: 10000 of ${total} tasks\r\x1b[Kimporting: 20000 of ${total} tasks\r\x1b[Kimporting: ${total} of ${total} tasks\r\x1b[K`);
    expect(script.stdout).toMatch(/\r\x1b\[Kimported \d+ tasks from .* \(replacing \d+\)\r\n$/);
  });
});

/** What a board reads as once every claimable task was claimed and released: those markers become `[ ]`. */
function rewriteClaimable(input: Buffer): string {
  const src = input.toString('latin1');
  const lines = parseTasks(input);
  let out = src;
  // Walk the markers the file board would claim (open, ⏰ whose tasks above are done, lapsed claims) from the end.
  const cut = claimableMarkers(src, lines);
  // A `[]` line (or the claim of one, U+FE0F after its 🟡) comes back as `[]`.
  const bare = (m: string) => m === '[]' || m.startsWith('[\xf0\x9f\x9f\xa1\xef\xb8\x8f');
  for (const [s, e] of cut.reverse()) out = out.slice(0, s) + (bare(out.slice(s, e)) ? '[]' : '[ ]') + out.slice(e);
  return out;
}

function claimableMarkers(src: string, tasks: Task[]): [number, number][] {
  const starts = lineStarts(src);
  const out: [number, number][] = [];
  let section: string | undefined = '\u0000';
  let allDone = true;
  for (const t of tasks) {
    if (t.section !== section) {
      section = t.section;
      allDone = true;
    }
    // A text holding the failure reason's separator is claimed by no one (it could never be failed).
    const claimable = (t.status === 'open' || (t.status === 'blocked' && allDone) || (t.status === 'claimed' && t.claimedAt !== undefined && Date.parse(t.claimedAt) <= Date.now() - 30 * 60_000)) && !` ${t.text}`.includes(' // Failed:');
    if (claimable) {
      const from = starts[t.line - 1]!;
      const s = src.indexOf('[', from);
      out.push([s, src.indexOf(']', s) + 1]);
    }
    if (t.status !== 'done') allDone = false;
  }
  return out;
}

function lineStarts(src: string): number[] {
  const starts = [0];
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && src.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}
