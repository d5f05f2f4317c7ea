// `npm run demo`: four polling triggers race over a copy of tasks.md; one is
// SIGKILLed mid-task; the reaper (as cron would run it) gives that task back,
// and another trigger finishes it. Prints who won what, and checks it.
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBoard } from 'mdclaim';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mdclaim-demo-'));
const file = join(dir, 'tasks.md');
copyFileSync(here('../tasks.md'), file);
appendFileSync(file, '\n## Git Worktree load\n' + Array.from({ length: 10 }, (_, i) => `[] Generate report ${i + 1} {batch}`).join('\n') + '\n');
const board = openBoard(file);
const say = (line) => console.log(`${((performance.now() - t0) / 1000).toFixed(2).padStart(6)}s  ${line}`);
const t0 = performance.now();

say(`board: ${file} (${(await board.list()).length} tasks)`);
const workers = ['agent-1', 'agent-2', 'agent-3', 'agent-4'].map((id) => {
  const child = spawn(process.execPath, [here('./polling-trigger.js')], {
    env: { ...process.env, MDCLAIM_FILE: file, AGENT_ID: id, POLL_MS: '100', WORK_MS: '400', HEARTBEAT_MS: '250' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const w = { id, child, current: null, done: [] };
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      const working = / working on (\S+)/.exec(line);
      const finished = / done (\S+)/.exec(line);
      if (working) w.current = working[1];
      if (finished) {
        w.done.push(finished[1]);
        w.current = null;
      }
      say(line);
    }
  });
  return w;
});

// Kill one trigger while it holds a task: its claim stays in the file, held by no one.
await sleep(600);
while (!workers.some((w) => w.current)) await sleep(20);
const victim = workers.find((w) => w.current);
const orphan = victim.current;
victim.child.kill('SIGKILL');
say(`SIGKILL ${victim.id} while it works on ${orphan}: the claim stays in tasks.md, held by a dead process`);

// The reaper, as cron runs it, every half second with a 2 s TTL (live holders heartbeat every 250 ms).
const cli = here('../bin/mdclaim.cjs');
for (;;) {
  await sleep(500);
  const out = execFileSync(process.execPath, [cli, 'reap', '--file', file, '--ttl', '2s'], { encoding: 'utf8' }).trim();
  if (out) say(`reaper: ${out}`);
  const tasks = await board.list();
  if (tasks.every((t) => t.status === 'done' || t.status === 'failed')) break;
}
for (const w of workers) w.child.kill('SIGTERM');

// Who won what, and the checks.
const tasks = await board.list();
const finished = workers.flatMap((w) => w.done);
const twice = finished.filter((id, i) => finished.indexOf(id) !== i);
const doneByAgents = tasks.filter((t) => t.status === 'done' && t.by?.startsWith('agent-')).map((t) => t.id);
console.log('\nwho did what:');
for (const t of tasks) console.log(`  ${t.id.padEnd(13)} ${t.status.padEnd(7)} ${(t.by ?? '').padEnd(9)} ${t.text}`);
console.log('\nchecks:');
const once = twice.length === 0 && finished.length === doneByAgents.length && doneByAgents.every((id) => finished.includes(id));
console.log(`  every task was finished by exactly one trigger: ${once ? 'yes' : 'NO'}`);
const rescued = tasks.find((t) => t.id === orphan);
console.log(`  ${orphan} (orphaned by the SIGKILL) was reopened and finished by ${rescued?.by}: ${rescued?.status === 'done' && rescued.by !== victim.id ? 'yes' : 'NO'}`);
console.log(`\nthe board as cat shows it:\n\n${readFileSync(file, 'utf8')}`);
rmSync(dir, { recursive: true, force: true });
if (!once || rescued?.status !== 'done') process.exitCode = 1;
