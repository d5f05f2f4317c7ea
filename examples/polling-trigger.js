// A polling trigger built on the library loop: claim the next task, run a
// command for it while the claim is kept alive, mark it done or failed when
// the command ends, and stop the command if the claim is ever lost.
//
//   MDCLAIM_FILE=tasks.md AGENT_ID=agent-1 node examples/polling-trigger.js
//
// Several of these can run at once on one host: each task goes to exactly one.
// SIGINT/SIGTERM stop it: the running command gets the signal, its task goes back to open.
import { openBoard, runTasks } from 'mdclaim';

const file = process.env.MDCLAIM_FILE ?? 'tasks.md';
const by = process.env.AGENT_ID ?? `trigger-${process.pid}`;
const workMs = Number(process.env.WORK_MS ?? 2000);

// Stand-in for the real work (an agent in a worktree, say): a child process
// that reads its task from the environment, takes a while, and may fail.
const work = `
  const tags = process.env.MDCLAIM_TASK_TAGS.split(',');
  setTimeout(() => {
    if (tags.includes('flaky') && Math.random() < 0.5) {
      console.error('the flaky step failed');
      process.exit(1);
    }
  }, ${workMs} * (0.5 + Math.random()));
`;

const say = {
  claimed: (e) => console.log(`${by}: working on ${e.id} "${e.text}"`),
  done: (e) => console.log(`${by}: done ${e.id}${e.commit ? ` at ${e.commit}` : ''}`),
  failed: (e) => console.log(`${by}: failed ${e.id}: ${e.reason}`),
  released: (e) => console.log(`${by}: released ${e.id}`),
  // The claim was taken over or reopened while the command ran: the command was stopped, nothing written.
  lost: (e) => console.error(`${by}: lost ${e.id}: ${e.reason}`),
};

const result = await runTasks(openBoard(file), {
  command: [process.execPath, '-e', work],
  by,
  // The claims' lease; heartbeats come every min(lease/3, (lease - 1s)/2).
  lease: process.env.LEASE ?? '30m',
  interval: Number(process.env.POLL_MS ?? 5000),
  // EXIT_WHEN_IDLE=1: one task after another until nothing is claimable, then exit.
  ...(process.env.EXIT_WHEN_IDLE === '1' ? { max: Infinity } : { loop: true }),
  handleSignals: true,
  onEvent: (e) => say[e.event]?.(e),
});
process.exitCode = result.stoppedBy === 'SIGTERM' ? 143 : result.stoppedBy === 'SIGINT' ? 130 : 0;
