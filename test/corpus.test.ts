import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bytes, toByteString, utf8 } from '../src/format/bytes.js';
import { referenceTaskLines } from './helpers/reference.js';
import { scanTasks } from '../src/format/scan.js';

// Real task files gathered from public repositories, kept next to the project.
const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.md')).sort() : [];
if (files.length === 0) console.log(`corpus tests skipped: no *.md in ${CORPUS}`);

// Files whose checkboxes are all out of play, and why; every other file has tasks.
const NO_TASKS: Record<string, string> = {
  '09-jgm-commonmark-hs.md': 'every checkbox is inside a fence',
  '16-unknown-sprint05-frontmatter-ko.md': 'checkboxes only in table cells',
  '20-unknown-escape-room-frontmatter-comments.md': 'every checkbox is inside an HTML comment',
  '29-unknown-chessgif-readme-blockquote-task.md': 'the one task is in a block quote',
  '31-unknown-obsidian-callout-quiz-zh.md': 'tasks only in callouts, which are block quotes',
};

const CLAIM = bytes('[🟡, ab12cd34, 2026-11-30T04:06:29Z]');

describe.skipIf(files.length === 0)('the corpus', () => {
  for (const file of files) {
    describe(file, () => {
      const buf = readFileSync(path.join(CORPUS, file));
      const src = toByteString(buf);
      const tasks = scanTasks(src);

      it('has the task lines remark finds', async () => {
        const expected = await referenceTaskLines(buf.toString('utf8'));
        expect(tasks.map((t) => ({ line: t.line, content: utf8(src, t.markerStart, t.end) }))).toEqual(expected);
      });

      it(NO_TASKS[file] ? `has no tasks: ${NO_TASKS[file]}` : 'has tasks', () => {
        if (NO_TASKS[file]) expect(tasks).toEqual([]);
        else expect(tasks.length).toBeGreaterThan(0);
      });

      it('comes back byte for byte from a claim and a release of each task', () => {
        for (const t of tasks) {
          const original = src.slice(t.markerStart, t.marker.end);
          const claimed = src.slice(0, t.markerStart) + CLAIM + src.slice(t.marker.end);
          // The claimed marker reads as a claim on the same line, and nothing else moves.
          const again = scanTasks(claimed);
          expect(again.map((u) => u.line)).toEqual(tasks.map((u) => u.line));
          expect(again.find((u) => u.line === t.line)!.marker.status).toBe('claimed');
          const released = claimed.slice(0, t.markerStart) + original + claimed.slice(t.markerStart + CLAIM.length);
          expect(Buffer.from(released, 'latin1').equals(buf)).toBe(true);
        }
      });
    });
  }
});
