import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../src/index.js';
import { textHash } from '../src/format/id.js';
import { withoutAfter } from '../src/format/after.js';

// What a task waits for (`{after: …}`) is not part of its id: the id of every
// task that declares none is what it always was, and declaring one keeps it.

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.md')).sort() : [];

describe('ids and {after: …}', () => {
  it.skipIf(files.length === 0)('leaves the id of every task of the corpus boards as it was', () => {
    const h = createHash('sha256');
    let n = 0;
    for (const f of files) {
      const tasks = parseTasks(readFileSync(path.join(CORPUS, f)));
      n += tasks.length;
      h.update(`${f}\n${tasks.map((t) => t.id).join('\n')}\n`);
    }
    // Every id as it was made before tasks could wait for others.
    expect([n, h.digest('hex')]).toEqual([1255, 'be58f5db35b8057cce76845f134b47d977ddf9d3e6e68763b01fb84ea8bb710d']);
  });

  it('hashes a text without its {after: …} groups and the blanks before them, but not one in a code span', () => {
    const id = (t: string) => textHash(t, 0, t.length);
    expect(['Deploy {after: 9f2c}', '{after: 9f2c} Deploy', 'Deploy {after: a} {after: section b}', 'Deploy'].map(id)).toEqual(Array(4).fill(id('Deploy')));
    expect(id('Deploy {after: 9f2c} now')).toBe(id('Deploy now'));
    expect(withoutAfter('Deploy `{after: x}`')).toBe('Deploy `{after: x}`');
    expect(id('Deploy {backend}')).not.toBe(id('Deploy'));
  });

  it('keeps a tracker key the id when the text starts with what it waits for', () => {
    const tasks = parseTasks('- [ ] PLAT-1 design\n- [ ] {after: PLAT-1} PLAT-2 build\n- [ ] PLAT-3 ship {after: PLAT-2}\n');
    expect(tasks.map((t) => t.id)).toEqual(['PLAT-1', 'PLAT-2', 'PLAT-3']);
  });
});
