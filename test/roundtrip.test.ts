import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openBoard, parseTasks } from '../src/index.js';
import { boardFile } from './helpers/tmp.js';

// Boards as people write them: headings, prose, fences, comments, nested and numbered lists, bare ADW lines.
const line = fc.oneof(
  fc.constantFrom('# Title', '## Git Worktree wt-1', '### Later', 'Some prose.', '', '', '```', '~~~', '<!-- note -->', '> quoted', '---', '| a | b |'),
  fc
    .tuple(
      fc.constantFrom('', '- ', '* ', '+ ', '1. ', '2) ', '  - ', '    - ', '\t- '),
      fc.constantFrom('[ ]', '[ ]', '[ ]', '[ ]', '[]', '[x]', '[⏰]', '[✅ abc1234, w1]', '[❌, w2]'),
      fc.constantFrom(' fix the parser', ' ünïcödé 🚀 {opus}', ' tagged {a, b}', '  two spaces  ', ' PLAT-7 keyed', ' same', ' same'),
    )
    .map(([p, m, t]) => p + m + t),
);
const board = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 14 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean())
  .map(([lines, eol, final, bom]) => (bom ? '\uFEFF' : '') + lines.join(eol) + (final ? eol : ''));

describe('claim and release through the board', () => {
  it('give every [ ] and [] task of a generated board back byte for byte, and change only its marker in between', async () => {
    let roundTrips = 0;
    await fc.assert(
      fc.asyncProperty(board, async (text) => {
        const file = boardFile(text);
        const original = readFileSync(file);
        const b = openBoard(file);
        const tasks = parseTasks(text);
        // Exact duplicates share an id and `claim` takes the first claimable of them: only a task whose id is its own comes back to its line.
        for (const task of tasks.filter((t) => tasks.filter((u) => u.id === t.id).length === 1)) {
          const line = original.toString('utf8').split(/\r?\n/)[task.line - 1]!;
          const open = /^\s*(?:[-*+]|\d+[.)])?\s*(\[ ?\])/.exec(line)?.[1];
          if (open === undefined || task.status !== 'open') continue;
          const claimed = await b.claim(task.id, { by: 'prop' });
          const during = readFileSync(file, 'utf8');
          // A claim of a [] line carries U+FE0F after its 🟡, which a release reads to write [] again.
          expect(during.replace(open === '[]' ? /\[🟡\uFE0F, prop, [^\]]+\]/ : /\[🟡, prop, [^\]]+\]/, open)).toBe(original.toString('utf8'));
          expect(parseTasks(during).find((t) => t.id === task.id)).toMatchObject({ status: 'claimed', by: 'prop', line: task.line });
          await b.release(claimed.id, { by: 'prop' });
          expect(readFileSync(file).equals(original)).toBe(true);
          roundTrips++;
        }
      }),
      { numRuns: 250 },
    );
    // The generator must actually produce claimable lines for this to prove anything.
    expect(roundTrips).toBeGreaterThan(100);
  });
});
