import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Watchdog } from '../src/runner/watchdog.js';
import { groupAlive, groupMembers, signalGroup, until } from './helpers/runner.js';

const groups: number[] = [];
afterEach(() => {
  for (const g of groups.splice(0)) signalGroup(g, 'SIGKILL');
});

/** A shell leading a group of its own, as the runner starts each command, with a pipeline under it. */
async function group(script = 'sleep 600 | cat'): Promise<number> {
  const pid = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).pid!;
  groups.push(pid);
  await until('the pipeline to run', () => groupMembers(pid) >= 3);
  return pid;
}

/** The watchdogs this process has started and not yet seen end. */
function watchdogs(): number[] {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' });
  return ps.stdout.split('\n').flatMap((l) => {
    const [pid, ppid, stat, ...args] = l.trim().split(/\s+/);
    return Number(ppid) === process.pid && !stat?.startsWith('Z') && args.includes('mdclaim-watchdog') ? [Number(pid)] : [];
  });
}

describe('the watchdog', () => {
  it('once the runner\'s end of its pipe closes, stops every group still armed (SIGKILL after the grace for one ignoring SIGTERM) and leaves disarmed ones alone', async () => {
    const w = new Watchdog(500);
    const [plain, stubborn, finished] = [await group(), await group('trap "" TERM; sleep 600 | cat'), await group()];
    for (const g of [plain, stubborn, finished]) await w.arm(g);
    w.disarm(finished); // the runner saw this one end
    expect(watchdogs()).toHaveLength(1); // one for all the groups
    w.close();
    await until('the groups to end', () => !groupAlive(plain) && !groupAlive(stubborn));
    await until('the watchdog to exit', () => watchdogs().length === 0);
    expect(groupMembers(finished)).toBeGreaterThanOrEqual(3);
  });

  it('exits at once when no group is armed, stopping nothing, and is reaped by its runner', async () => {
    const w = new Watchdog(60_000);
    const g = await group();
    await w.arm(g);
    w.disarm(g);
    await w.close();
    expect(watchdogs()).toEqual([]); // ended, and reaped by its runner
    expect(groupMembers(g)).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['at once', 0],
    ['after it has run a while', 1500],
  ])('is replaced when killed %s while groups run, and the new one stops them', async (_, after) => {
    const w = new Watchdog(500);
    const g = await group();
    // A watchdog of an earlier test may still be on its way out: this test's is the one arm() starts.
    const before = new Set(watchdogs());
    await w.arm(g);
    const armedAt = Date.now(); // the watchdog started within arm()
    const first = watchdogs().find((p) => !before.has(p));
    expect(first).toBeDefined();
    await until('the moment to kill it', () => Date.now() - armedAt >= after);
    process.kill(first!, 'SIGKILL');
    await until('another watchdog', () => watchdogs().some((p) => p !== first));
    w.close();
    await until('the group to end', () => !groupAlive(g));
  });
});
