import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Edit } from '../src/format/edit.js';
import { FileStore, type WriteMode } from '../src/storage/file-store.js';
import { boardFile, read } from './helpers/tmp.js';

const BOARD = '# Board\n\n- [ ] first task\n- [ ] last task\n';
const latin1 = (s: string) => Buffer.from(s).toString('latin1');

/** An edit of the last task's marker: longer (a claim) or of the same length. */
function markerEdit(src: string, bytes: string): Edit {
  const start = src.lastIndexOf('[ ]');
  return { start, end: start + 3, bytes: latin1(bytes) };
}

/**
 * Run an update whose decision is interrupted by a real writer that ignores
 * the lock (a shell command run between mdclaim's read and its write), and
 * return how the update ended.
 */
async function interrupted(file: string, write: WriteMode, writer: string, marker: string) {
  const store = new FileStore(file, { write, durable: false, lockTimeoutMs: 5000, allowNetworkFs: false });
  return store
    .update((src) => {
      const edit = markerEdit(src, marker);
      expect(spawnSync('sh', ['-c', writer], { env: { ...process.env, F: file } }).status).toBe(0);
      return { edits: [edit], result: 'written' };
    })
    .catch((err: { code: string; message: string }) => err);
}

const CLAIM = '[🟡, w, 2026-11-30T04:06:29Z]';
const SAME = '[x]';

describe('a writer that ignores the lock, between the read and the write', () => {
  it.each([
    ['replaces the file (sed -i), before an in-place write', 'auto', `sed -i 's/first/1st/' "$F"`, CLAIM],
    ['replaces the file (sed -i), before a replace', 'replace', `sed -i 's/first/1st/' "$F"`, CLAIM],
    ['appends a line in place, before an in-place write', 'auto', `echo '- [ ] appended' >> "$F"`, CLAIM],
    ['rewrites another line in place, same size, before a replace', 'replace', `sed 's/first/FIRST/' "$F" > "$F.x" && cat "$F.x" > "$F"`, CLAIM],
    ['rewrites the same line in place, before a same-size in-place write', 'auto', `sed 's/\\[ \\] last/[_] last/' "$F" > "$F.x" && cat "$F.x" > "$F"`, SAME],
  ] as const)('%s: VERIFY, nothing written, its change kept', async (_, write, writer, marker) => {
    const file = boardFile(BOARD);
    // What the writer alone makes of the board.
    const alone = boardFile(BOARD);
    spawnSync('sh', ['-c', writer], { env: { ...process.env, F: alone } });
    const r = await interrupted(file, write, writer, marker);
    expect(r).toMatchObject({ code: 'VERIFY', message: expect.stringMatching(/changed by a writer that ignores the lock .*; nothing was written, run it again$/) });
    expect(read(file)).toBe(read(alone));
  });

  it('writes as usual when nobody interrupts (the check itself changes nothing)', async () => {
    for (const write of ['auto', 'replace'] as const) {
      const file = boardFile(BOARD);
      expect(await interrupted(file, write, 'true', CLAIM)).toBe('written');
      expect(read(file)).toBe(BOARD.replace('[ ] last', `${CLAIM} last`));
    }
  });
});
