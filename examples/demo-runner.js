// `npm run demo`, second act: `mdclaim run` as the trigger. Three runners
// (leases of 3 s) work through a board until it is settled. One is frozen
// (SIGSTOP) while it runs the long job; once its claim lapses another runner
// takes the job over; when the frozen one resumes, its heartbeat finds the
// claim gone, so it stops its command and writes nothing. The checks read the
// board and the runners' --events files, never their narration.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBoard } from 'mdclaim';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mdclaim-demo-run-'));
const file = join(dir, 'tasks.md');
const jobs = Array.from({ length: 8 }, (_, i) => `- [ ] Summarize chapter ${i + 1}`);
writeFileSync(file, ['# Book', '', '- [ ] Translate the whole book {long}', ...jobs, ''].join('\n'));
const board = openBoard(file);
const t0 = performance.now();
const say = (line) => console.log(`${((performance.now() - t0) / 1000).toFixed(2).padStart(6)}s  ${line}`);
const until = async (cond) => {
  for (let v = await cond(); ; v = await cond()) {
    if (v) return v;
    await sleep(50);
  }
};

// The long job runs until the demo lets it finish; the others take half a second.
const work = `case ",$MDCLAIM_TASK_TAGS," in
  *,long,*) while [ ! -e "${dir}/long-may-end" ]; do sleep 0.1; done ;;
  *) sleep 0.5 ;;
esac`;
console.log(`\nmdclaim run: three runners over ${file}\n`);
const names = ['run-a', 'run-b', 'run-c'];
const runners = names.map((by) => {
  const events = join(dir, `${by}.jsonl`);
  const args = ['run', '--file', file, '--by', by, '--until-settled', '--lease', '3s', '--interval', '200ms', '--no-commit', '--events', events, '--', 'sh', '-c', work];
  const child = spawn(process.execPath, [here('../bin/mdclaim.cjs'), ...args], { stdio: ['ignore', 'inherit', 'pipe'] });
  const r = { by, child, events, said: [], exit: once(child, 'exit') };
  createInterface({ input: child.stderr }).on('line', (line) => {
    r.said.push(line);
    say(`${by}  ${line.replace(/^mdclaim: /, '')}`);
  });
  return r;
});
const eventsOf = (r) => (existsSync(r.events) ? readFileSync(r.events, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

// Freeze whoever runs the long job: it cannot heartbeat, and its claim lapses within 3 s.
const long = await until(async () => (await board.list()).find((t) => t.tags.includes('long') && t.status === 'claimed'));
const frozen = runners.find((r) => r.by === long.by);
// (Only for the narration: its "claimed" line is out before it is frozen.)
await until(() => frozen.said.some((l) => l.includes(`claimed ${long.id}`)));
// Stopped inside a heartbeat's critical section, or while its wait for the lock is being granted, it
// holds the board's lock for as long as it is stopped, and no one could take the job over. So while
// the board does not answer within 300 ms, let it go on a moment and stop it again.
const peek = openBoard(file, { lockTimeout: '300ms' });
const look = () => peek.list().catch((err) => (err.code === 'LOCK_TIMEOUT' ? null : Promise.reject(err)));
let taken;
for (let said = false; !taken; ) {
  frozen.child.kill('SIGSTOP');
  const now = await look();
  if (now === null) {
    frozen.child.kill('SIGCONT');
    await sleep(20);
    continue;
  }
  if (!said) say(`SIGSTOP ${frozen.by} while it runs ${long.id}: no heartbeats now`);
  said = true;
  taken = now.find((t) => t.id === long.id && t.status === 'claimed' && t.by !== frozen.by);
  if (!taken) await sleep(50);
}
say(`${taken.by} took ${long.id} over once the frozen claim lapsed`);
frozen.child.kill('SIGCONT');
say(`SIGCONT ${frozen.by}: its next heartbeat finds the claim gone`);
await until(() => eventsOf(frozen).some((e) => e.event === 'lost' && e.id === long.id));
writeFileSync(join(dir, 'long-may-end'), '');
const codes = await Promise.all(runners.map((r) => r.exit.then(([code]) => code)));

// The checks, from the board and the events.
const tasks = await board.list();
const all = runners.flatMap((r) => eventsOf(r).map((e) => ({ ...e, runner: r.by })));
const done = all.filter((e) => e.event === 'done');
const lost = all.filter((e) => e.event === 'lost');
console.log('\nwho did what:');
for (const t of tasks) console.log(`  ${t.id.padEnd(13)} ${t.status.padEnd(7)} ${(t.by ?? '').padEnd(6)} ${t.text}`);
console.log('\nchecks:');
const check = (ok, what) => {
  console.log(`  ${what}: ${ok ? 'yes' : 'NO'}`);
  return ok;
};
const results = [
  check(
    runners.every((r, i) => codes[i] === (r === frozen ? 4 : 0)),
    'every runner stopped by itself once the board was settled: exit 0, and 4 for the one whose claim was lost',
  ),
  check(
    tasks.every((t) => t.status === 'done' && done.filter((e) => e.id === t.id).length === 1 && done.find((e) => e.id === t.id).runner === t.by),
    'every task is done, written once, by the runner the board names',
  ),
  check(
    lost.length === 1 && lost[0].runner === frozen.by && lost[0].id === long.id,
    `${frozen.by} lost ${long.id} and stopped its command (reason: ${lost[0]?.reason})`,
  ),
  check(
    !eventsOf(frozen).some((e) => e.id === long.id && ['done', 'failed', 'released'].includes(e.event)) &&
      tasks.find((t) => t.id === long.id).by === taken.by,
    `${frozen.by} wrote nothing to ${long.id} after it was taken over; ${taken.by} finished it`,
  ),
];
rmSync(dir, { recursive: true, force: true });
if (!results.every(Boolean)) process.exitCode = 1;
