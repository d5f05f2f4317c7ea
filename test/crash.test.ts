import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard, parseTasks } from '../src/index.js';
import { fixture, lines, start } from './helpers/procs.js';
import { boardFile } from './helpers/tmp.js';

// Long enough that most lines live on pages other than the last (replace path),
// while tasks near the end are rewritten in place: both paths get killed.
const BOARD =
  '# Crash\n\n' +
  Array.from({ length: 160 }, (_, i) => `- [ ] task ${i} — ünïcödé 🚀 {t${i % 4}}`).join('\n') +
  '\n\n```\n- [ ] not a task\n```\n';

// The victims claim with a 1s lease, which their claim lines record.
const MARKER = /^(- )\[(?: |🟡, k\d, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, 1s|✅ c0ffee, k\d)\]( task \d+ — ünïcödé 🚀 \{t\d\})$/;

/** The file is whole: every line is the original line, except a task line's marker, which is a valid one. */
function assertWhole(text: string): void {
  const want = BOARD.split('\n');
  const got = text.split('\n');
  expect(got).toHaveLength(want.length);
  got.forEach((line, i) => {
    if (line === want[i]) return;
    const m = MARKER.exec(line);
    expect(m, `line ${i + 1} torn: ${JSON.stringify(line)}`).not.toBeNull();
    expect(`${m![1]}[ ]${m![2]}`).toBe(want[i]);
  });
}

const rounds = 24;

describe('the wholeness check', () => {
  it('rejects a file with a half-written marker, a shifted tail or a changed text', () => {
    const lines = BOARD.split('\n');
    const torn = (i: number, line: string) => [...lines.slice(0, i), line, ...lines.slice(i + 1)].join('\n');
    expect(() => assertWhole(torn(2, '- [🟡, k0, 2026-11-30T0'))).toThrow();
    expect(() => assertWhole(torn(3, '- [ ] task 1 — ünïcödé 🚀 {t1}- [ ] task 2'))).toThrow();
    expect(() => assertWhole(torn(4, '- [ ] task 2 — unicode 🚀 {t2}'))).toThrow();
    expect(() => assertWhole(BOARD + '\n')).toThrow();
    expect(() => assertWhole(torn(2, '- [🟡, k0, 2026-11-30T04:06:29Z, 1] task 0 — ünïcödé 🚀 {t0}'))).toThrow();
    assertWhole(torn(2, '- [🟡, k0, 2026-11-30T04:06:29Z, 1s] task 0 — ünïcödé 🚀 {t0}'));
  });
});

describe.each(['flock', 'mkdir'])('SIGKILL at random instants (%s)', (lock) => {
  const env = { MDCLAIM_LOCK: lock };
  // The two write modes run at once, each on a board of its own: a round is mostly starting processes and waiting for them.
  it.concurrent.each(['auto', 'replace'])('never leaves a torn or wrongly changed file (write: %s)', async (write) => {
    const file = boardFile(BOARD);
    for (let round = 0; round < rounds; round++) {
      const victims = [0, 1].map((k) => start(fixture('churn.mjs'), [file, `k${k}`, write], env));
      await Promise.all(victims.map((v) => new Promise((r) => v.child.stdout!.once('data', r))));
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 60));
      for (const v of victims) v.child.kill('SIGKILL');
      const exits = await Promise.all(victims.map((v) => v.done));
      for (const e of exits) expect(e.signal).toBe('SIGKILL');
      assertWhole(readFileSync(file, 'utf8'));
    }
    // A later write cleans up what the killed writers left behind: temp files,
    // and with mkdir their lock and prepared lock directories. (A reap with
    // nothing stale writes nothing, so make a write that always happens.)
    const board = openBoard(file, { write: 'replace', lock: lock as 'flock' | 'mkdir' });
    const t = (await board.next({ by: 'k9', lease: '1s' }))!;
    await board.release(t.id, { by: 'k9' });
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
    assertWhole(readFileSync(file, 'utf8'));
    // Each round starts two processes: minutes, not seconds, on a machine with a load average of 20.
  }, 300_000);

  it('lets readers that go through the library see only whole files while writers churn', async () => {
    const file = boardFile(BOARD);
    const original = join(dirname(file), 'original.md');
    writeFileSync(original, BOARD);
    const writers = [0, 1].map((k) => start(fixture('churn.mjs'), [file, `k${k}`, 'auto'], env));
    const reader = await start(fixture('reader.mjs'), [file, original, '1500', '11'], env).done;
    for (const w of writers) w.child.kill('SIGKILL');
    await Promise.all(writers.map((w) => w.done));
    expect(reader.stdout).toMatch(/^reads \d+\n$/);
    expect(Number(lines(reader.stdout, 'reads')[0])).toBeGreaterThan(10);
    expect(parseTasks(readFileSync(file)).length).toBe(160);
  });
});
