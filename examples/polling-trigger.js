// A polling trigger: every few seconds, claim the next task, keep the claim
// alive with heartbeats while working, then mark it done or failed.
//
//   MDCLAIM_FILE=tasks.md AGENT_ID=agent-1 node examples/polling-trigger.js
//
// Several of these can run at once on one host: each task goes to exactly one.
import { setTimeout as sleep } from 'node:timers/promises';
import { openBoard } from 'mdclaim';

const file = process.env.MDCLAIM_FILE ?? 'tasks.md';
const by = process.env.AGENT_ID ?? `trigger-${process.pid}`;
const pollMs = Number(process.env.POLL_MS ?? 5000);
const workMs = Number(process.env.WORK_MS ?? 2000);
const heartbeatMs = Number(process.env.HEARTBEAT_MS ?? 60_000);
const exitWhenIdle = process.env.EXIT_WHEN_IDLE === '1';

// Our claims carry this lease on their line; past it anyone may take them over: heartbeat well within it.
const board = openBoard(file, { lease: process.env.LEASE ?? '30m' });

/** Stand-in for the real work (spawning an agent in a worktree, say). */
async function work(task) {
  await sleep(workMs * (0.5 + Math.random()));
  if (task.tags.includes('flaky') && Math.random() < 0.5) throw new Error('the flaky step failed');
  return Math.random().toString(16).slice(2, 11).padEnd(9, '0'); // the commit it made
}

async function runOne(task) {
  console.log(`${by}: working on ${task.id} "${task.text}"`);
  // CONFLICT means the lease lapsed and someone else took the task over: it is theirs now.
  const lost = (err) => {
    if (err.code !== 'CONFLICT') throw err;
    console.error(`${by}: lost ${task.id}: ${err.message}`);
  };
  // Every write is fenced to this claim (its claim time), so a newer claim of the line is never touched.
  // Beats run one after another, and the final write waits for the last one, so it carries the latest claim time.
  let claimedAt = task.claimedAt;
  let beating = Promise.resolve();
  const beat = setInterval(() => {
    beating = beating.then(() =>
      board.heartbeat(task.id, { by, claimedAt }).then(
        (t) => void (claimedAt = t.claimedAt),
        (err) => console.error(`${by}: heartbeat failed: ${err.message}`),
      ),
    );
  }, heartbeatMs);
  const settle = async () => {
    clearInterval(beat);
    await beating;
  };
  try {
    const commit = await work(task);
    await settle();
    await board.done(task.id, { by, claimedAt, commit });
    console.log(`${by}: done ${task.id} at ${commit}`);
  } catch (err) {
    // A refused done is a lost task; a failed work is reported, unless the task was lost meanwhile.
    if (err.code === 'CONFLICT') lost(err);
    else {
      await settle();
      await board.fail(task.id, { by, claimedAt, reason: err.message }).catch(lost);
    }
  } finally {
    clearInterval(beat);
  }
}

for (;;) {
  const task = await board.next({ by });
  if (task) await runOne(task);
  else if (exitWhenIdle) break;
  else await sleep(pollMs);
}
