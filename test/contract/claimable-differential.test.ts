import { describe, expect, it } from 'vitest';
import { formatClaimedAt } from '../../src/format/marker.js';
import { textHash } from '../../src/format/id.js';
import { mdclaimAsync } from '../helpers/cli.js';
import { describeKinds, kinds } from './kinds.js';
import { pgTitle } from '../helpers/pg.js';
import { prng } from '../helpers/prng.js';

// What a listing says of a task is what a claim of it does: for every task of
// generated boards (blockers of every kind), `claimable` in `list --json` (and
// in `status --json`) is exactly whether `claim` of it succeeds, on every board.

const MIN = 60_000;

const PATHS = ['src/a.ts', 'src/', 'docs/b.md', 'docs/', 'lib/c.ts'];

/**
 * A board of a few sections, each task one of: open, [⏰], done, failed, a live
 * claim, a lapsed one (by the default lease or its own), a claim with a long lease
 * of its own, an untimed claim; some waiting for a retry (due or not), some
 * declaring paths, some claims holding locks. Every time is far from any edge.
 */
export function makeBoard(seed: number, now: number, withAfter = false): string {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const at = (ms: number) => formatClaimedAt(now + ms);
  const lines: string[] = [];
  let n = 0;
  const sections = 1 + Math.floor(r() * 3);
  // With `withAfter`, some tasks wait for others: mostly one above them by id or the start of one;
  // now and then a section (a cycle, maybe), or an id that names nothing on the board.
  const texts: string[] = [];
  const after = () => {
    if (!withAfter || texts.length === 0 || r() >= 0.5) return '';
    const above = () => {
      const t = pick(texts);
      return textHash(t, 0, t.length);
    };
    const items = Array.from({ length: 1 + Math.floor(r() * 2) }, () =>
      pick([() => above(), () => above(), () => above().slice(0, 6), () => `section Part ${Math.floor(r() * sections)}`, () => pick(['zzzz9', 'PLAT-404'])])(),
    );
    return ` {after: ${items.join(', ')}}`;
  };
  for (let s = 0; s < sections; s++) {
    lines.push(`## Part ${s}`, '');
    const count = 3 + Math.floor(r() * 5);
    for (let i = 0; i < count; i++) {
      const waits = after();
      const text = `task ${seed}-${n++}${waits}`;
      const paths = r() < 0.45 ? ` {${pick(['writes', 'reads'])}: ${pick(PATHS)}}` : '';
      texts.push(`task ${seed}-${n - 1}${paths}`);
      const kind = pick(['open', 'open', 'blocked', 'blocked', 'done', 'done', 'failed', 'live', 'lapsed', 'short', 'long', 'untimed'] as const);
      const retry = (kind === 'open' || kind === 'blocked') && r() < 0.3 ? ` // Attempts: 1, not before ${at(r() < 0.5 ? 90 * MIN : -90 * MIN)}` : '';
      // mdclaim's forms and the other ADW tools' (docs/FORMAT.md, dialects), chosen by n: no randomness taken.
      const marker = {
        open: ['[ ]', '[]', `[, id${n}]`][n % 3]!,
        blocked: ['[⏰]', `[⏰, t${n}]`][n % 2]!,
        done: ['[✅ abc1234, x]', '[✅, taskab, 0c4f1d2e9b7a]', '[✅, 5e1c0b2, 9a7f3c21]'][n % 3]!,
        failed: ['[❌, x]', '[❌ w-x]'][n % 2]!,
        live: [`[🟡, c${n}, ${at(-5 * MIN)}]`, `[🟡\uFE0F, c${n}, ${at(-5 * MIN)}]`][n % 2]!,
        lapsed: `[🟡, c${n}, ${at(-90 * MIN)}]`,
        short: `[🟡, c${n}, ${at(-30 * MIN)}, 1m]`,
        long: `[🟡, c${n}, ${at(-90 * MIN)}, 1d]`,
        untimed: [`[🟡, c${n}]`, `[🟡 c${n}, trees/t${n}]`][n % 2]!,
      }[kind];
      const reason = kind === 'failed' ? ' // Failed: broke' : '';
      lines.push(`- ${marker} ${text}${paths}${retry}${reason}`);
      if ((kind === 'live' || kind === 'lapsed' || kind === 'untimed') && r() < 0.4) {
        // The time in mdclaim's form, or in another RFC 3339 form a hand or another tool writes.
        const since = at(-MIN);
        lines.push(`  - 🔒 ${pick(['write', 'read'])} ${pick(PATHS)} since ${[since, since.replace('Z', '+00:00'), since.replace('Z', '.5Z')][n % 3]}`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}

describeKinds('claimable, as listed and as claimed, on the $name board', (kind) => {
  it('lists claimable for every task exactly when claim of it succeeds, over generated boards', async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 18; seed++) {
      // Seeds past 10 make boards whose tasks wait for one another.
      const doc = makeBoard(seed, Date.now(), seed > 10);
      const { location } = await kind.make(doc);
      const listed = await mdclaimAsync(['list', '--json', '--file', location]);
      expect([listed.status, listed.stderr]).toEqual([0, '']);
      const tasks = (JSON.parse(listed.stdout) as { tasks: { id: string; claimable: boolean; status: string; waitsFor?: unknown; refused?: string }[] }).tasks;
      // status says the same of every task as list.
      const status = await mdclaimAsync(['status', '--json', '--file', location]);
      expect([status.status, status.stderr]).toEqual([0, '']);
      expect((JSON.parse(status.stdout) as { tasks: unknown[] }).tasks).toEqual(tasks.map((t) => ({ id: t.id, status: t.status, claimable: t.claimable })));
      // Each claim on a board of its own, as listed: independent, so the seed's claims are made at once.
      const claims = await Promise.all(tasks.map(async (t) => {
        const { board } = await kind.make(doc);
        const claimed = await board.claim(t.id, { by: 'tester' }).then(() => true, (err: { code?: string }) => {
          expect(['CONFLICT', 'USAGE']).toContain(err.code);
          return false;
        });
        await board.close();
        return claimed;
      }));
      for (const [i, t] of tasks.entries()) {
        expect(typeof t.claimable).toBe('boolean');
        expect({ seed, id: t.id, claimable: claims[i] }).toEqual({ seed, id: t.id, claimable: t.claimable });
        seen.add(`${t.status}:${t.claimable}`);
        if (t.waitsFor !== undefined) seen.add('after:wait');
        if (t.refused?.startsWith('waits for') === true) seen.add('after:line');
      }
    }
    // The boards held both answers for every status that can have both.
    for (const both of ['open', 'blocked', 'claimed']) expect([seen.has(`${both}:true`), seen.has(`${both}:false`)]).toEqual([true, true]);
    // And tasks that wait for others, refused lines among them.
    expect([seen.has('after:wait'), seen.has('after:line')]).toEqual([true, true]);
  }, 300_000);
});

describeKinds('a refusal, as listed and as claimed, on the $name board', (kind) => {
  it('gives the line\'s own reason first, as exit 2, whatever else holds the task back, over generated boards', async () => {
    let refusedWaiting = 0;
    for (let seed = 1; seed <= 8; seed++) {
      // Every third task's line declares a path outside the tree, whatever its marker, retry or claim.
      let n = 0;
      const doc = makeBoard(seed, Date.now(), seed > 4).replace(/^(- \[[^\]]*\] task \d+-\d+)/gm, (m: string) => (n++ % 3 === 0 ? `${m} {writes: ../out.ts}` : m));
      const { location } = await kind.make(doc);
      const listed = await mdclaimAsync(['list', '--json', '--file', location]);
      expect([listed.status, listed.stderr]).toEqual([0, '']);
      const tasks = (JSON.parse(listed.stdout) as { tasks: { id: string; line: number; status: string; claimable: boolean; refused?: string; retryInMs?: number }[] }).tasks;
      const answers = await Promise.all(tasks.map(async (t) => {
        const { board } = await kind.make(doc);
        const answer = await board.claim(t.id, { by: 'tester' }).then(() => 'claimed', (err: { code?: string; message: string }) => `${err.code}: ${err.message}`);
        await board.close();
        return answer;
      }));
      for (const [i, t] of tasks.entries()) {
        const answer = answers[i]!;
        const outside = t.refused?.startsWith('declares') === true;
        if (outside) expect({ seed, id: t.id, answer }).toEqual({ seed, id: t.id, answer: `USAGE: line ${t.line} ${t.refused} (fix the line to claim it)` });
        else expect({ seed, id: t.id, usage: answer.startsWith('USAGE: ') && answer.includes('declares') }).toEqual({ seed, id: t.id, usage: false });
        if (outside && /Attempts: 1, not before/.test(doc.split('\n')[t.line - 1]!)) refusedWaiting++;
      }
    }
    // The boards held refused lines that also wait for a retry.
    expect(refusedWaiting).toBeGreaterThan(0);
  }, 300_000);
});

describe.skipIf(kinds.length < 2)(pgTitle('claimable, as each board lists it'), () => {
  it('is the same answer, with the same hold in the way, on the file board and the PostgreSQL board', async () => {
    let held = 0;
    let waited = 0;
    for (let seed = 11; seed <= 22; seed++) {
      const doc = makeBoard(seed, Date.now(), seed > 16);
      const views: { blockedBy: unknown; waitsFor: unknown }[][] = [];
      for (const kind of kinds) {
        const { location } = await kind.make(doc);
        const listed = await mdclaimAsync(['list', '--json', '--file', location]);
        const tasks = (JSON.parse(listed.stdout) as { tasks: { id: string; claimable: boolean; blockedBy?: unknown; waitsFor?: unknown; refused?: string; after?: unknown }[] }).tasks;
        views.push(tasks.map((t) => ({ seed, id: t.id, claimable: t.claimable, blockedBy: t.blockedBy ?? null, waitsFor: t.waitsFor ?? null, refused: t.refused ?? null, after: t.after ?? null })));
      }
      expect(views[1]).toEqual(views[0]);
      held += views[0]!.filter((t) => t.blockedBy !== null).length;
      waited += views[0]!.filter((t) => t.waitsFor !== null).length;
    }
    expect([held > 0, waited > 0]).toEqual([true, true]);
  }, 300_000);
});
