import { named } from '../src/format/named.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard, parseTasks } from '../src/index.js';
import { mdclaim, mdclaimAsync, type CliResult } from './helpers/cli.js';
import { fixture } from './helpers/procs.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const EDITOR = `${process.execPath} ${fixture('editor.mjs')}`;

/** Resolves once `file` exists (a watcher, set before the first look: no sleeps). */
function waitForFile(file: string): Promise<void> {
  return new Promise((resolve) => {
    const w = watch(dirname(file), () => existsSync(file) && (w.close(), resolve()));
    if (existsSync(file)) (w.close(), resolve());
  });
}

interface Session {
  done: Promise<CliResult>;
  /** The editor has the copy open: what it saw. */
  ready: Promise<{ path: string; mode: number; args: string[] }>;
  /** Let the editor save and exit. */
  go: () => void;
  tmp: string;
}

/** Start `mdclaim edit` with the scripted editor; it waits for go() before it edits. */
function startEdit(file: string, actions: unknown[], env: Record<string, string> = {}, args: string[] = []): Session {
  const dir = join(dirname(file), 'signals');
  const tmp = join(dirname(file), 'tmp');
  mkdirSync(dir);
  mkdirSync(tmp);
  const readyFile = join(dir, 'ready');
  const goFile = join(dir, 'go');
  const done = mdclaimAsync(['edit', '--file', file, ...args], {
    VISUAL: '', EDITOR, TMPDIR: tmp, EDIT_READY: readyFile, EDIT_GO: goFile, EDIT_ACTIONS: JSON.stringify(actions), ...env,
  });
  const ready = waitForFile(readyFile).then(() => JSON.parse(readFileSync(readyFile, 'utf8')));
  return { done, ready, go: () => writeFileSync(goFile, ''), tmp };
}

const json = (out: string) => JSON.parse(out) as Record<string, any>;

function board(n: number): string {
  const tasks = Array.from({ length: n }, (_, i) => `- [ ] T-${i + 1} task ${i + 1}`);
  return `# Sprint\n\nIntro prose.\n\n- [x] T-100 finished before\n${tasks.join('\n')}\n\nClosing prose.\n`;
}

describe('mdclaim edit', () => {
  it('keeps every claim and finish made while the person edits, and lands their prose, new task, rewording and move', async () => {
    const file = boardFile(board(60));
    const s = startEdit(file, [
      { replace: ['Intro prose.', 'Intro prose, edited by hand.'] },
      { replace: ['T-100 finished before', 'T-100 finished before, reworded'] },
      { move: 'T-5 task 5', after: 'Intro prose' },
      { append: '- [ ] T-200 added by hand\n' },
    ]);
    await s.ready;
    // Claimers run from the moment the editor has its copy until after the merge is written.
    const won: Array<{ id: string; by: string; done: boolean }> = [];
    let editing = true;
    const claimer = async (by: string) => {
      for (let n = 0; editing; n++) {
        const r = await mdclaimAsync(['next', '--file', file, '--by', by, '-q']);
        if (r.status !== 0) break;
        const id = r.stdout.trim();
        const finish = n % 2 === 1;
        if (finish) expect(mdclaim(['done', id, '--file', file, '--by', by]).status).toBe(0);
        won.push({ id, by, done: finish });
        if (won.length === 6) s.go();
      }
    };
    const claimers = Promise.all(['c1', 'c2', 'c3'].map(claimer));
    const r = await s.done;
    editing = false;
    await claimers;

    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ status: 0, stdout: expect.stringMatching(/^merged your edit into .*tasks\.md \(kept \d+ changes? made on the board meanwhile\)\n$/) });
    expect(won.length).toBeGreaterThanOrEqual(6);
    const tasks = parseTasks(read(file));
    for (const w of won) expect(tasks.find((t) => t.id === w.id)).toMatchObject({ status: w.done ? 'done' : 'claimed', by: w.by });
    // The person's edits landed; nothing else changed but the markers claimers wrote.
    const text = read(file);
    expect(text).toContain('Intro prose, edited by hand.\n- [');
    expect(text.split('\n')[3]).toMatch(/^- \[.*\] T-5 task 5$/);
    expect(tasks.find((t) => t.id === 'T-100')).toMatchObject({ status: 'done', text: 'T-100 finished before, reworded' });
    expect(tasks.find((t) => t.id === 'T-200')).toMatchObject({ text: 'T-200 added by hand' });
    const unmarked = (s: string) => s.replace(/^- \[[^\]]*\]/gm, '- []');
    const expected = board(60).replace('Intro prose.', 'Intro prose, edited by hand.\n- [ ] T-5 task 5').replace('- [ ] T-5 task 5\n- [ ] T-6', '- [ ] T-6')
      .replace('finished before', 'finished before, reworded') + '- [ ] T-200 added by hand\n';
    expect(unmarked(text)).toBe(unmarked(expected));
    expect(readdirSync(s.tmp)).toEqual([]); // the private copy is gone
  });

  it('refuses an edit of a task claimed meanwhile: the board stays as it is, the copy is saved beside it, exit 4', async () => {
    const file = boardFile(board(3));
    const s = startEdit(file, [{ replace: ['T-2 task 2', 'T-2 task 2, reworded'] }, { replace: ['Closing prose.', 'Closing words.'] }]);
    await s.ready;
    expect(mdclaim(['claim', 'T-2', '--file', file, '--by', 'c1']).status).toBe(0);
    const before = bytesOf(file);
    s.go();
    const r = await s.done;
    expect(r.status).toBe(4);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('error[CONFLICT]: T-2 "task 2" changed on the board meanwhile (claimed by c1)');
    const saved = /^your copy is saved as (.*); .* is unchanged$/.exec(lines[1]!)![1]!;
    expect(lines).toHaveLength(2);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(dirname(saved)).toBe(dirname(file));
    expect(saved).toMatch(/tasks\.md\.edit-\d{8}T\d{6}Z\.md$/);
    expect(read(saved)).toBe(board(3).replace('T-2 task 2', 'T-2 task 2, reworded').replace('Closing prose.', 'Closing words.'));
  });

  it('reports every conflicting task, also as one JSON document', async () => {
    const file = boardFile(board(3));
    const s = startEdit(file, [{ replace: ['- [ ] T-1 task 1\n', ''] }, { replace: ['[ ] T-3', '[x] T-3'] }], {}, ['--json']);
    await s.ready;
    mdclaim(['claim', 'T-1', '--file', file, '--by', 'c1']);
    mdclaim(['claim', 'T-3', '--file', file, '--by', 'c2']);
    mdclaim(['done', 'T-3', '--file', file, '--by', 'c2']);
    s.go();
    const r = await s.done;
    expect(r.status).toBe(4);
    expect(r.stderr).toContain('error[CONFLICT]: T-1 "task 1" changed on the board meanwhile (claimed by c1)\n');
    expect(r.stderr).toContain('error[CONFLICT]: T-3 "task 3" changed on the board meanwhile (done by c2)\n');
    const { error } = json(r.stdout);
    expect(error).toMatchObject({ code: 'CONFLICT', copy: expect.stringMatching(/\.edit-.*\.md$/) });
    expect(error.conflicts).toEqual([
      { id: 'T-1', line: 6, status: 'claimed', by: 'c1', message: 'T-1 "task 1" changed on the board meanwhile (claimed by c1)' },
      { id: 'T-3', line: 8, status: 'done', by: 'c2', message: 'T-3 "task 3" changed on the board meanwhile (done by c2)' },
    ]);
  });

  it('changes nothing when the editor exits non-zero, even after saving', async () => {
    const file = boardFile(board(3));
    const before = bytesOf(file);
    const s = startEdit(file, [{ append: '- [ ] abandoned\n' }], { EDIT_EXIT: '1' });
    s.go();
    const r = await s.done;
    expect(r).toMatchObject({ status: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error\[EDITOR\]: the editor ".*editor\.mjs" exited with status 1: nothing changed\n$/);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(readdirSync(dirname(file)).filter((n) => n.includes('.edit-'))).toEqual([]);
    expect(readdirSync(s.tmp)).toEqual([]);
  });

  it('says where it cannot make its private copy as one IO line, exit 1, the board unchanged', () => {
    const file = boardFile(board(3));
    const before = bytesOf(file);
    const missing = join(dirname(file), 'no-such-tmp');
    const r = mdclaim(['edit', '--file', file], { VISUAL: '', EDITOR: 'true', TMPDIR: missing });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`error[IO]: cannot make a private copy to edit in ${missing} (TMPDIR): no such directory; ${file} is unchanged\n`);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('says "no changes" and exits 0 when the copy is saved unchanged, leaving claims made meanwhile alone', async () => {
    const file = boardFile(board(3));
    const s = startEdit(file, []);
    await s.ready;
    mdclaim(['claim', 'T-1', '--file', file, '--by', 'c1']);
    const before = bytesOf(file);
    s.go();
    const r = await s.done;
    expect(r).toMatchObject({ status: 0, stdout: `no changes: ${file} is as it was\n`, stderr: '' });
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('edits a private copy (0600, under TMPDIR), runs $VISUAL before $EDITOR through sh, and takes a save by rename', async () => {
    const file = boardFile(board(2));
    const s = startEdit(file, [{ append: '- [ ] T-9 by rename\n' }], {
      VISUAL: `${EDITOR} --wait`, EDITOR: 'false', EDIT_SAVE: 'rename',
    });
    const seen = await s.ready;
    expect(seen.mode).toBe(0o600);
    expect(seen.path.startsWith(s.tmp + '/')).toBe(true);
    expect(seen.args).toEqual(['--wait', seen.path]);
    s.go();
    const r = await s.done;
    expect(r.status).toBe(0);
    expect(parseTasks(read(file)).at(-1)).toMatchObject({ id: 'T-9', status: 'open' });
  });

  it('takes markers typed by hand as typed', async () => {
    const file = boardFile(board(2));
    const s = startEdit(file, [{ replace: ['[ ] T-1', '[🟡, alice] T-1'] }, { replace: ['[x] T-100', '[ ] T-100'] }]);
    s.go();
    const r = await s.done;
    expect(r.status).toBe(0);
    const tasks = parseTasks(read(file));
    expect(tasks.find((t) => t.id === 'T-1')).toMatchObject({ status: 'claimed', by: 'alice' });
    expect(tasks.find((t) => t.id === 'T-100')).toMatchObject({ status: 'open' });
  });

  it('prints one JSON document with --json', async () => {
    const file = boardFile(board(2));
    const dir = dirname(file);
    const r = mdclaim(['edit', '--file', file, '--json'], { VISUAL: '', EDITOR: `sh -c 'echo "- [ ] T-7 from sh" >> "$1"' sh`, TMPDIR: dir });
    expect(r.status).toBe(0);
    expect(json(r.stdout)).toEqual({ changed: true, kept: 0 });
    expect(parseTasks(read(file)).at(-1)).toMatchObject({ id: 'T-7' });
  });
});

describe('board.applyEdit', () => {
  it('merges outside the lock, and merges again when the board changed between the merge and its apply', async () => {
    const file = boardFile(board(3));
    const b = openBoard(file);
    const snapshot = await b.snapshot();
    const attempts: number[] = [];
    const r = await b.applyEdit(snapshot, snapshot.toString().replace('task 3', 'task three'), {
      onMerged: (attempt) => {
        attempts.push(attempt);
        // Merged, not yet applied: this process holds no lock, so a claimer elsewhere gets through without waiting.
        if (attempt === 1) expect(mdclaim(['next', '--by', 'x', '--file', file, '--lock-timeout', '1ms']).status).toBe(0);
      },
    });
    expect(attempts).toEqual([1, 2]);
    expect(r).toEqual({ merged: true, changed: true, kept: 1 });
    expect(parseTasks(read(file)).map((t) => [t.text, t.status, t.by])).toEqual([
      ['T-100 finished before', 'done', undefined], ['T-1 task 1', 'claimed', 'x'], ['T-2 task 2', 'open', undefined], ['T-3 task three', 'open', undefined],
    ]);
    await b.close();
  });

  it('merges under the lock once the board changed under three merges in a row, so a busy board still takes the edit', async () => {
    const file = boardFile(board(5));
    const b = openBoard(file);
    const snapshot = await b.snapshot();
    const claimed: number[] = [];
    const r = await b.applyEdit(snapshot, snapshot.toString().replace('task 5', 'task five'), {
      onMerged: (attempt) => claimed.push(mdclaim(['next', '--by', `c${attempt}`, '--file', file, '--lock-timeout', '1ms']).status),
    });
    // Three claims got through between merge and apply; the fourth merge held the lock, so its claimer timed out.
    expect(claimed).toEqual([0, 0, 0, 1]);
    expect(r).toEqual({ merged: true, changed: true, kept: 3 });
    expect(parseTasks(read(file)).map((t) => t.by ?? t.text).slice(1)).toEqual(['c1', 'c2', 'c3', 'T-4 task 4', 'T-5 task five']);
    await b.close();
  });

  it('merges an edit of a snapshot with what happened since, and writes nothing on a conflict', async () => {
    const file = boardFile(board(3));
    const b = openBoard(file);
    const snapshot = await b.snapshot();
    expect(snapshot.equals(bytesOf(file))).toBe(true);
    await b.claim('T-2', { by: 'c1' });
    const claimed = bytesOf(file);
    // Reworded the claimed task: refused, nothing written.
    const r = await b.applyEdit(snapshot, snapshot.toString().replace('task 2', 'task two'));
    expect(r).toEqual({ merged: false, conflicts: [{ id: 'T-2', line: 7, status: 'claimed', by: 'c1', message: 'T-2 "task 2" changed on the board meanwhile (claimed by c1)' }] });
    expect(bytesOf(file).equals(claimed)).toBe(true);
    // Reworded another: merged, the claim kept.
    expect(await b.applyEdit(snapshot, Buffer.from(snapshot.toString().replace('task 3', 'task three')))).toEqual({ merged: true, changed: true, kept: 1 });
    expect(parseTasks(read(file)).map((t) => [t.text, t.status, t.by])).toEqual([
      ['T-100 finished before', 'done', undefined], ['T-1 task 1', 'open', undefined], ['T-2 task 2', 'claimed', 'c1'], ['T-3 task three', 'open', undefined],
    ]);
    // The same edit again changes nothing more.
    expect(await b.applyEdit(snapshot, snapshot.toString().replace('task 3', 'task three'))).toEqual({ merged: true, changed: false, kept: 2 });
    await expect(b.applyEdit(snapshot, 42 as unknown as string)).rejects.toMatchObject({ code: 'USAGE' });
  });
});

describe('lock lines in an edit', () => {
  it('refuses an edit that would hand a claim\'s lock lines to the task above, and keeps them with a reworded task', async () => {
    const file = boardFile('# Work\n\n- [ ] Z first\n- [ ] A second {writes: src/a.ts}\n- [ ] B third\n');
    const b = openBoard(file);
    const z = await b.claim((await b.list())[0]!.id, { by: 'eve' });
    const a = await b.claim((await b.list())[1]!.id, { by: 'dana' });
    const since = (await b.lockPaths(a.id, { by: 'dana', writes: ['docs/api.md'] })).locks![0]!.since;
    const snapshot = await b.snapshot();
    const text = snapshot.toString();
    expect(text).toMatch(/\] A second \{writes: src\/a\.ts\}\n {2}- 🔒 write docs\/api\.md since /);
    // The person deletes A's line but not its lock line: the lock would become Z's (eve's).
    const lines = text.split('\n');
    const withoutA = lines.filter((l) => !l.includes('A second')).join('\n');
    const r = await b.applyEdit(snapshot, withoutA);
    expect(r.merged).toBe(false);
    expect(r.merged === false && r.conflicts.map((c) => c.message)).toEqual([
      `the lock "🔒 write docs/api.md since ${since}" of ${named(a)} (claimed by dana) would sit under ${named(z)} (claimed by eve) once merged: move it with its task, or delete it`,
    ]);
    expect(bytesOf(file).equals(snapshot)).toBe(true);
    // Rewording A keeps its claim, so its lock stays its own.
    const reworded = await b.applyEdit(snapshot, text.replace('A second', 'A second, reworded'));
    expect(reworded).toEqual({ merged: true, changed: true, kept: 0 });
    const after = (await b.list()).find((t) => t.text.startsWith('A second, reworded'))!;
    expect([after.by, after.locks?.map((l) => l.path)]).toEqual(['dana', ['docs/api.md']]);
  });
});
