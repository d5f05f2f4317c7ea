import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { CLI, mdclaim } from './helpers/cli.js';
import { fixture, start } from './helpers/procs.js';
import { asNobody, nobodyCannot } from './helpers/nobody.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const isRoot = process.getuid?.() === 0;
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });

/** A board of about `size` bytes whose one open task is its last line, so a claim writes in place and grows the file. */
function boardOf(size: number): string {
  const head = '# Board\n\n';
  const task = '- [ ] the last task\n';
  return head + 'x'.repeat(size - head.length - task.length - 2) + '\n\n' + task;
}

/** The CLI under `ulimit -f <kib>` in a real child shell. */
const underUlimit = (kib: number, args: string[]) =>
  spawnSync('bash', ['-c', `ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, CLI, ...args], { encoding: 'utf8' });

describe('a write cut short changes nothing', () => {
  it('refuses an in-place claim that would pass ulimit -f: error[IO], the board byte-identical', () => {
    const file = boardFile(boardOf(1010));
    const before = bytesOf(file);
    const r = underUlimit(1, ['next', '--file', file, '--by', 'agent-7']);
    expect(r.stderr).toMatch(/^error\[IO\]: .*file size limit \(ulimit -f, 1024 bytes\); the board is unchanged\n$/);
    expect(r.status).toBe(1);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('refuses a replace that would pass ulimit -f, and leaves no temp file', () => {
    const file = boardFile(boardOf(1010));
    const before = bytesOf(file);
    const r = underUlimit(1, ['next', '--file', file, '--by', 'agent-7', '--write', 'replace']);
    expect(r.stderr).toMatch(/^error\[IO\]: .*ulimit -f.*; the board is unchanged\n$/);
    expect(r.status).toBe(1);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(readdirSync(dirname(file))).toEqual(['tasks.md']);
  });

  it('puts the old bytes back when a limit lowered while it runs cuts an in-place write short', async () => {
    const file = boardFile('- [ ] first\n- [ ] second\n');
    const p = start(fixture('write-twice.mjs'), [file]);
    await new Promise((r) => p.child.stdout!.once('data', r));
    const after1 = bytesOf(file);
    expect(after1.toString()).toMatch(/^- \[🟡, w1, \S+\] first\n- \[ \] second\n$/);
    // The second claim starts writing below the limit and would end past it.
    const limit = after1.length + 5;
    expect(run('prlimit', [`--pid=${p.child.pid}`, `--fsize=${limit}:${limit}`]).status).toBe(0);
    p.child.kill('SIGUSR1');
    const e = await p.done;
    expect(e.stdout).toMatch(/\nerror IO .*: short write \(\d+ of \d+ bytes; .*\); the board is unchanged\n$/);
    expect(bytesOf(file).equals(after1)).toBe(true);
  });

  describe.skipIf(!isRoot)('on a full file system (a small tmpfs; needs root to mount, skipped otherwise)', () => {
    let mnt = '';
    afterEach(() => {
      if (mnt) run('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
      mnt = '';
    });

    it('answers ENOSPC with error[IO], from the CLI and as MdclaimError IO, the board unchanged', async () => {
      mnt = mkdtempSync(join(tmpdir(), 'mdclaim-full-'));
      if (run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]).status !== 0) return void console.warn('cannot mount a tmpfs here: skipped');
      const file = join(mnt, 'tasks.md');
      // Larger than a page, so a claim of its first task writes a new file (an in-place write of an allocated page needs no space).
      writeFileSync(file, Array.from({ length: 400 }, (_, i) => `- [ ] task ${i}\n`).join(''));
      const before = bytesOf(file);
      run('sh', ['-c', `cat /dev/zero > '${mnt}/filler'`]); // until ENOSPC
      const r = mdclaim(['next', '--file', file, '--by', 'w']);
      expect(r.stderr).toMatch(/^error\[IO\]: .*no space left on the device; the board is unchanged\n$/);
      expect(r.status).toBe(1);
      const board = openBoard(file);
      await expect(board.next({ by: 'w' })).rejects.toMatchObject({ code: 'IO' });
      // The lock's descriptor of the directory goes with close(), so the file system can be unmounted.
      await board.close();
      expect(bytesOf(file).equals(before)).toBe(true);
      expect(readdirSync(mnt).sort()).toEqual(['filler', 'tasks.md']);
    });
  });
});

describe('a board is one board', () => {
  it('refuses a hard-linked board before any write, and still lists it', () => {
    const file = boardFile('- [ ] one\n- [ ] two\n');
    linkSync(file, join(dirname(file), 'other.md'));
    const r = mdclaim(['next', '--file', file, '--by', 'w']);
    expect(r.stderr).toMatch(/^error\[IO\]: .*has 2 hard links, and a replace would split them into separate boards.*; the board is unchanged\n$/);
    expect(r.status).toBe(1);
    expect(read(file)).toBe('- [ ] one\n- [ ] two\n');
    expect(statSync(file).nlink).toBe(2);
    expect(mdclaim(['list', '--file', file]).status).toBe(0);
  });
});

describe('files beside the board', () => {
  it("removes only its own board's orphaned temp files, never those of a board named like it", () => {
    const file = boardFile('- [ ] one\n');
    const dir = dirname(file);
    writeFileSync(join(dir, 'tasks.md.next'), '- [ ] other\n');
    const mine = '.tasks.md.0123456789ab.mdclaim.tmp';
    const theirs = ['.tasks.md.next.0123456789ab.mdclaim.tmp', '.tasks.md.next.mdclaim.tmp', '.tasks.md.0123456789ab.mdclaim.tmp.x'];
    for (const name of [mine, ...theirs]) writeFileSync(join(dir, name), 'half a board');
    expect(mdclaim(['next', '--file', file, '--by', 'w', '--write', 'replace']).status).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['tasks.md', 'tasks.md.next', ...theirs].sort());
  });
});

// A user other than the board's owner: tests run as root here, so drop to nobody with setpriv.
if (nobodyCannot) console.warn(`write.test.ts: the tests as an unprivileged user are skipped: ${nobodyCannot}`);

describe.skipIf(nobodyCannot !== '')('as an unprivileged user (needs root, setpriv and a checkout nobody can run; skipped otherwise)', () => {
  /** A directory nobody can enter, and may write when `writable`. */
  function dirFor(writable: boolean): string {
    const file = boardFile('- [ ] one\n- [ ] two\n');
    const dir = dirname(file);
    chmodSync(dir, 0o755);
    if (writable) chownSync(dir, 65534, 65534);
    return file;
  }

  it('keeps the group of a board it replaces when it may not keep the owner', () => {
    const file = dirFor(true);
    chownSync(file, 0, 100); // root's, group users, writable by the group
    chmodSync(file, 0o664);
    const r = asNobody(['next', '--file', file, '--by', 'w', '--write', 'replace'], '100');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const st = statSync(file);
    expect([st.uid, st.gid, st.mode & 0o777]).toEqual([65534, 100, 0o664]);
  });

  it('refuses the first write when it could not finish what it claims (the directory is not writable), and still lists', () => {
    const file = dirFor(false);
    chmodSync(file, 0o666);
    const r = asNobody(['next', '--file', file, '--by', 'w']);
    expect(r.stderr).toMatch(/^error\[IO\]: .*cannot write in .*, where mdclaim writes the new board before renaming it over \(make the directory writable for this user\); the board is unchanged\n$/);
    expect(r.status).toBe(1);
    expect(read(file)).toBe('- [ ] one\n- [ ] two\n');
    expect(asNobody(['list', '--file', file]).status).toBe(0);
  });

  it('claims and finishes every way once the directory is writable', () => {
    const file = dirFor(true);
    chmodSync(file, 0o666);
    expect(asNobody(['next', '--file', file, '--by', 'w']).status).toBe(0);
    const id = /^(\S+)/.exec(asNobody(['list', '--file', file]).stdout)![1]!;
    const r = asNobody(['done', id, '--file', file, '--by', 'w']);
    expect(r.stderr).toBe('');
    expect(read(file)).toBe('- [✅, w] one\n- [ ] two\n');
  });
});

const bindfs = isRoot && run('sh', ['-c', 'command -v bindfs']).status === 0;

describe.skipIf(!bindfs)('on FUSE (a bindfs mount; needs root and bindfs, skipped otherwise)', () => {
  it('refuses the board with UNSUPPORTED_FS unless MDCLAIM_ALLOW_NFS=1', () => {
    const file = boardFile('- [ ] one\n');
    const mnt = join(dirname(file), 'mnt');
    mkdirSync(mnt);
    expect(run('bindfs', [dirname(file), mnt]).status).toBe(0);
    try {
      const via = join(mnt, 'tasks.md');
      const r = mdclaim(['next', '--file', via, '--by', 'w']);
      expect(r.stderr).toMatch(/^error\[UNSUPPORTED_FS\]: .* is on a FUSE file system .*MDCLAIM_ALLOW_NFS=1/);
      expect(r.status).toBe(1);
      expect(read(file)).toBe('- [ ] one\n');
      expect(mdclaim(['next', '--file', via, '--by', 'w'], { MDCLAIM_ALLOW_NFS: '1' }).status).toBe(0);
    } finally {
      run('umount', [mnt]);
    }
  });
});
