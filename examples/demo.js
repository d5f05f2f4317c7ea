// `npm run demo`: four polling triggers race over a copy of tasks.md; one is
// SIGKILLed mid-task; once its claim lapses, the reaper (as cron would run it)
// or another trigger's takeover gets that task back, and another trigger
// finishes it. Prints who won what, and checks it against the board itself:
// the triggers' output is narration, read only once they have exited, so a
// busy machine cannot make a check race a pipe.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBoard } from 'mdclaim';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mdclaim-demo-'));
const file = join(dir, 'tasks.md');
copyFileSync(here('tasks.md'), file);
appendFileSync(file, '\n## Git Worktree load\n' + Array.from({ length: 10 }, (_, i) => `[] Generate report ${i + 1} {batch}`).join('\n') + '\n');
const board = openBoard(file);
const t0 = performance.now();
const say = (line) => console.log(`${((performance.now() - t0) / 1000).toFixed(2).padStart(6)}s  ${line}`);

const atStart = await board.list();
const toDo = atStart.filter((t) => t.status !== 'done' && t.status !== 'failed').map((t) => t.id);
say(`board: ${file} (${atStart.length} tasks, ${toDo.length} to do)`);
const ids = ['agent-1', 'agent-2', 'agent-3', 'agent-4'];
const workers = ids.map((id) => {
  const child = spawn(process.execPath, [here('./polling-trigger.js')], {
    env: { ...process.env, MDCLAIM_FILE: file, AGENT_ID: id, POLL_MS: '100', WORK_MS: '400', LEASE: '3s' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const w = { id, child, reported: [], closed: once(child, 'close') };
  // Whole lines, however the pipe splits them.
  createInterface({ input: child.stdout }).on('line', (line) => {
    const finished = / done (\S+)/.exec(line);
    if (finished) w.reported.push(finished[1]);
    say(line);
  });
  return w;
});

// Kill one trigger while it holds a task: its claim stays in the file, held by no one.
// What it holds is read from the board while it is stopped (SIGSTOP), so it cannot
// finish that task between the look and the kill. If it was stopped inside its
// critical section, the look times out: let it go on and look again.
const peek = openBoard(file, { lockTimeout: '300ms' });
let victim;
let orphan;
while (!orphan) {
  await sleep(50);
  const tasks = await board.list();
  if (tasks.every((t) => t.status === 'done' || t.status === 'failed')) break;
  const w = workers.find((x) => tasks.some((t) => t.status === 'claimed' && t.by === x.id));
  if (!w) continue;
  w.child.kill('SIGSTOP');
  const held = await peek.list().then(
    (now) => now.find((t) => t.status === 'claimed' && t.by === w.id),
    (err) => {
      if (err.code === 'LOCK_TIMEOUT') return undefined;
      throw err;
    },
  );
  if (!held) {
    w.child.kill('SIGCONT');
    continue;
  }
  w.child.kill('SIGKILL');
  victim = w;
  orphan = held.id;
  say(`SIGKILL ${w.id} while it works on ${orphan}: the claim stays in tasks.md, held by a dead process`);
}
if (!orphan) say('every task was finished before a trigger could be killed mid-task');

// The reaper, as cron runs it, every half second: it reopens claims past their own 3 s lease (live holders heartbeat every second).
const cli = here('../bin/mdclaim.cjs');
for (;;) {
  const tasks = await board.list();
  if (tasks.every((t) => t.status === 'done' || t.status === 'failed')) break;
  await sleep(500);
  const out = execFileSync(process.execPath, [cli, 'reap', '--file', file], { encoding: 'utf8' }).trim();
  if (out) say(`reaper: ${out}`);
}
for (const w of workers) w.child.kill('SIGTERM');
await Promise.all(workers.map((w) => w.closed));

// Who won what, and the checks, from the board.
const tasks = await board.list();
const byId = new Map(tasks.map((t) => [t.id, t]));
console.log('\nwho did what:');
for (const t of tasks) console.log(`  ${t.id.padEnd(13)} ${t.status.padEnd(7)} ${(t.by ?? '').padEnd(9)} ${t.text}`);
console.log('\nchecks:');
const check = (ok, what) => {
  console.log(`  ${what}: ${ok ? 'yes' : 'NO'}`);
  return ok;
};
const results = [
  check(
    toDo.every((id) => byId.get(id)?.status === 'done' && ids.includes(byId.get(id).by)),
    `every task to do is done, each by one trigger (${toDo.length} on the board)`,
  ),
  // A trigger prints "done" only after its done() returned, and nothing changes a done line:
  // whatever it printed, the board must show as its own, and no task may be printed twice.
  check(
    workers.every((w) => w.reported.every((id) => byId.get(id)?.status === 'done' && byId.get(id).by === w.id)) &&
      new Set(workers.flatMap((w) => w.reported)).size === workers.flatMap((w) => w.reported).length,
    'every task a trigger reported done is done by it on the board, none twice',
  ),
  orphan !== undefined &&
    check(
      byId.get(orphan)?.status === 'done' && byId.get(orphan).by !== victim.id,
      `${orphan} (orphaned by the SIGKILL) was reopened and finished by ${byId.get(orphan)?.by}`,
    ),
];
console.log(`\nthe board as cat shows it:\n\n${readFileSync(file, 'utf8')}`);
rmSync(dir, { recursive: true, force: true });
if (!results.every(Boolean)) process.exitCode = 1;
