import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyEdits, checkReading } from '../src/board/check-reading.js';
import { release } from '../src/file/finish.js';
import { lockPaths } from '../src/file/path-locks.js';
import type { Plan } from '../src/board/plan.js';
import { listTasks } from '../src/board/walk.js';
import { bytes, toByteString } from '../src/format/bytes.js';
import { scanTasks } from '../src/format/scan.js';

// Real task files: lock lines under each of their tasks must read as meant and leave no trace.
// Beside the project (`../shared/corpus`), or one level further up for a checkout inside a folder of checkouts.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = [path.resolve(ROOT, '../shared/corpus'), path.resolve(ROOT, '../../shared/corpus')].find((d) => existsSync(d)) ?? path.resolve(ROOT, '../shared/corpus');
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.md')).sort() : [];
if (files.length === 0) console.log(`path lock corpus tests skipped: no *.md in ${CORPUS}`);

const BY = 'zz-lock-test';
const CLAIM = bytes(`[🟡, ${BY}, 2026-11-30T04:06:29Z]`);
const NOW = Date.parse('2026-11-30T04:10:00Z');

function apply<T>(src: string, plan: Plan<T>): string {
  checkReading(src, plan);
  return applyEdits(src, [...plan.edits].sort((a, b) => a.start - b.start));
}

describe.skipIf(files.length === 0)('path locks on the corpus', () => {
  for (const file of files) {
    it(`${file}: locks under every task read as its own, change no other task, and leave with a release byte for byte`, () => {
      const src = toByteString(readFileSync(path.join(CORPUS, file)));
      let checked = 0;
      for (const t of scanTasks(src)) {
        const claimed = src.slice(0, t.markerStart) + CLAIM + src.slice(t.marker.end);
        const tasks = listTasks(claimed);
        // A marker with nothing after it is no task; a claimant already on the board would make the id ambiguous.
        const mine = tasks.find((x) => x.line === t.line);
        if (!mine || tasks.some((x) => x !== mine && x.by === BY)) continue;
        checked++;
        const locked = apply(claimed, lockPaths(claimed, mine.id, { by: BY }, { writes: ['src/a.ts', 'lib/'], reads: ['docs/(x)/api.md'] }, NOW));
        const after = listTasks(locked);
        expect(after.map((x) => x.text)).toEqual(tasks.map((x) => x.text));
        expect(after.filter((x) => x.locks).map((x) => [x.text, x.locks!.length])).toEqual([[mine.text, 3]]);
        const released = apply(locked, release(locked, mine.id, { by: BY }));
        expect(released).toBe(claimed.slice(0, t.markerStart) + '[ ]' + claimed.slice(t.markerStart + CLAIM.length));
      }
      expect(checked).toBe(listTasks(src).length);
    });
  }
});
