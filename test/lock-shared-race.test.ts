import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, mdclaimAsync } from './helpers/cli.js';
import { boardFile } from './helpers/tmp.js';

// `mdclaim lock --shared -- cat F` racing editors that rewrite F in place
// under `mdclaim lock`: a reader must always print the whole board, never an
// empty or cut one. Without the lock (the control run) the same harness sees
// the rewrite half done, so it can see the race it guards against.

const BOARD = Array.from({ length: 300 }, (_, i) => `- [ ] task ${i + 1} of the board`).join('\n') + '\n<!-- end -->\n';

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Editors rewriting the board in place (same inode: truncate, a pause, write it back) until `stop` exists. */
function editors(file: string, n: number, env: Record<string, string>) {
  const dir = dirname(file);
  const stop = join(dir, 'stop');
  const done = Array.from({ length: n }, (_, i) => {
    const copy = join(dir, `copy${i}`);
    const rewrite = `cat '${file}' > '${copy}' && : > '${file}' && sleep 0.02 && cat '${copy}' > '${file}'`;
    const child = spawn('sh', ['-c', `n=0; while [ ! -e '${stop}' ]; do "$0" '${CLI}' lock --file '${file}' -- sh -c "$1" || exit 1; n=$((n+1)); echo $n; done`, process.execPath, rewrite], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    running.push(child);
    let edits = 0;
    child.stdout.on('data', (d) => (edits = Number(String(d).trim().split('\n').at(-1))));
    return { edits: () => edits, exit: new Promise<number | null>((r) => child.on('close', r)) };
  });
  return {
    started: async () => {
      while (done.some((e) => e.edits() === 0)) await new Promise((r) => setTimeout(r, 10));
    },
    stop: async () => {
      writeFileSync(stop, '');
      return Promise.all(done.map((e) => e.exit));
    },
  };
}

/** `readers` loops of `rounds` shared reads each; stops early once `enough` torn reads were seen. */
async function race(env: Record<string, string>, readers: number, rounds: number, enough = Infinity) {
  const file = boardFile(BOARD);
  const eds = editors(file, 2, env);
  await eds.started();
  let reads = 0;
  const torn: string[] = [];
  const failed: string[] = [];
  await Promise.all(
    Array.from({ length: readers }, async () => {
      for (let i = 0; i < rounds && torn.length < enough; i++) {
        const r = await mdclaimAsync(['lock', '--shared', '--file', file, '--', 'cat', file], env);
        if (r.status !== 0) failed.push(`exit ${r.status}: ${r.stderr}`);
        else if (r.stdout !== BOARD) torn.push(`${r.stdout.length} of ${BOARD.length} bytes`);
        reads++;
      }
    }),
  );
  const exits = await eds.stop();
  return { reads, torn, failed, exits };
}

describe('mdclaim lock --shared racing in-place rewriters', () => {
  it('the control run, without the lock, sees a board rewritten half way', async () => {
    const r = await race({ MDCLAIM_LOCK: 'none' }, 3, 60, 1);
    expect(r.torn.length).toBeGreaterThan(0);
  }, 600_000);

  it('every shared reader prints the whole board, and every editor its rewrite', async () => {
    const r = await race({}, 3, 12);
    expect(r.failed).toEqual([]);
    expect(r.torn).toEqual([]);
    expect(r.reads).toBe(36);
    expect(r.exits).toEqual([0, 0]);
  }, 600_000);
});
