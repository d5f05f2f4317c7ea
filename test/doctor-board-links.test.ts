import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFile } from '../src/doctor/file.js';
import { openBoard } from '../src/index.js';
import { errorOf } from './helpers/errors.js';

// doctor says ✗ for a board a claim refuses for its links, with a fix that works once done.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mdclaim-doctor-links-'));
  dirs.push(dir);
  return dir;
}
const board = (path: string) => checkFile(path, Date.now()).find((f) => f.check === 'board')!;

describe('doctor on a board reached through links', () => {
  it('fails on a hard-linked board, as a claim does, and passes once the other name is a symlink', async () => {
    const dir = project();
    const file = join(dir, 'tasks.md');
    writeFileSync(file, '- [ ] A\n');
    linkSync(file, join(dir, 'other.md'));
    expect((await errorOf(openBoard(file).next({ by: 'w' }))).message).toMatch(/hard links/);
    const found = board(file);
    expect(found).toMatchObject({ verdict: 'fail', says: `${file}: has 2 hard links, and a replace would split them into separate boards: mdclaim refuses it` });
    expect(found.fix).toContain(`-samefile ${file}`);
    // The fix: the other name becomes a symlink.
    unlinkSync(join(dir, 'other.md'));
    symlinkSync(file, join(dir, 'other.md'));
    expect(board(file).verdict).toBe('ok');
    expect(await openBoard(join(dir, 'other.md')).next({ by: 'w' })).toMatchObject({ text: 'A' });
  });

  it('fails on a symlink loop without suggesting init on it, and on a dangling symlink names its target', () => {
    const dir = project();
    const loop = join(dir, 'loop1');
    symlinkSync(join(dir, 'loop2'), loop);
    symlinkSync(loop, join(dir, 'loop2'));
    const looped = board(loop);
    expect(looped).toMatchObject({ verdict: 'fail', says: `${loop}: a loop of symlinks, which leads to no file` });
    expect(looped.fix).toContain(`rm ${loop}`);
    const dangling = join(dir, 'tasks.md');
    symlinkSync('gone/board.md', dangling);
    expect(board(dangling)).toMatchObject({ verdict: 'fail', says: `${dangling}: a symlink to gone/board.md, which does not exist` });
    // The fix works: its target made, the board passes.
    expect(board(dangling).fix).toContain(`mkdir -p ${join(dir, 'gone')} && npx mdclaim init --file ${join(dir, 'gone', 'board.md')}`);
    mkdirSync(join(dir, 'gone'));
    writeFileSync(join(dir, 'gone', 'board.md'), '- [ ] A\n');
    expect(board(dangling).verdict).toBe('ok');
  });
});
