import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { boardFile, read } from './helpers/tmp.js';

// A process's first change runs once on a board in memory before the lock (src/file/warm-up.ts). Each case here is
// the first change of a fresh process, so what the warm-up ran on, and threw in, is behind it.

const DIST = new URL('../dist/index.js', import.meta.url).href;

/** Run `body` (with `board` open on `file`) as the first thing a fresh process does; what it prints, as JSON. */
function firstOf(file: string, body: string): unknown {
  const script = `import { openBoard } from ${JSON.stringify(DIST)};
const board = openBoard(${JSON.stringify(file)});
const out = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

const BOARD = '# Work\n\n- [x] old\n- [ ] done 1\n- [ ] first real\n';

describe("a fresh process's first change", () => {
  it('claims from the file what it would have claimed, and writes only its marker', () => {
    const file = boardFile(BOARD);
    // `done 1` is also the text of a done line on the board in memory: only the file's counts.
    expect(firstOf(file, `return (await board.next({ by: 'w' }))?.text;`)).toBe('done 1');
    expect(read(file)).toMatch(/^# Work\n\n- \[x\] old\n- \[🟡, w, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] done 1\n- \[ \] first real\n$/);
  });

  it('claims by an id the board in memory does not have (its decision threw there), and finds nothing where there is nothing', () => {
    const file = boardFile(BOARD);
    const id = (firstOf(file, 'return (await board.list()).map((t) => t.id);') as string[])[2]!;
    expect(firstOf(file, `return (await board.claim(${JSON.stringify(id)}, { by: 'w' })).text;`)).toBe('first real');
    const empty = boardFile('# Work\n\n- [x] old\n');
    expect(firstOf(empty, `return await board.next({ by: 'w' });`)).toBeNull();
    expect(read(empty)).toBe('# Work\n\n- [x] old\n');
  });

  it('adds to the file once, though the warm-up added to the board in memory too', () => {
    const file = boardFile(BOARD);
    expect(firstOf(file, `return (await board.add('new one')).text;`)).toBe('new one');
    expect(read(file)).toBe(`${BOARD}- [ ] new one\n`);
  });
});
