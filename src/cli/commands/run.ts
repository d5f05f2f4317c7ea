import { describe, type RunEvent } from '../../runner/events.js';
import { runTasks } from '../../runner/run.js';
import { usage } from '../../errors.js';
import { has, one, wholeNumber } from '../args.js';
import { EventsFile } from '../events-file.js';
import { exitCodeForRun } from '../exit.js';
import { withOwnBin } from '../own-bin.js';
import type { WorktreeOptions } from '../../runner/types.js';
import type { Parsed } from '../args.js';
import type { Command } from './types.js';

// Only the command line: the loop itself is the library's runTasks.
export const run: Command = async (board, p, io) => {
  if (has(p, 'json')) throw usage('run leaves stdout to the command: for machine-readable progress use --events FILE');
  const by = one(p, 'by') ?? process.env['MDCLAIM_BY'];
  const lease = one(p, 'lease');
  const interval = one(p, 'interval');
  const grace = one(p, 'grace');
  const section = one(p, 'section');
  const tags = p.flags.get('tag');
  const concurrency = wholeNumber(p, 'concurrency');
  const max = wholeNumber(p, 'max');
  const retries = wholeNumber(p, 'retries', 0);
  const retryDelay = one(p, 'retry-delay');
  const maxAttempts = wholeNumber(p, 'max-attempts');
  if (retryDelay !== undefined && !retries) throw usage('--retry-delay needs --retries N');
  const loop = has(p, 'loop') || has(p, 'until-settled');
  const worktree = worktreeFlags(p);
  const eventsPath = one(p, 'events');
  const events = eventsPath === undefined ? undefined : EventsFile.open(eventsPath, io.err);
  // Someone watching a terminal is told when a loop goes quiet and when it wakes, so it does not look hung.
  const terminal = process.stderr.isTTY === true;
  const onEvent = (e: RunEvent) => {
    events?.write(e);
    if (e.event === 'idle' || e.event === 'awake') {
      if (terminal) io.err(`mdclaim: ${e.event === 'idle' ? `idle: nothing to claim in ${board.location}; looking again every ${interval ?? '5s'} (^C stops)` : 'awake: work appeared'}`);
      return;
    }
    // A made-up id is said once, so the claims on the board can be told as this runner's.
    if (e.event === 'start' && by !== undefined) return;
    const line = describe(e);
    if (line !== null) io.err(`mdclaim: ${line}`);
  };
  try {
    const result = await runTasks(board, {
      command: p.positionals,
      // The command's own `mdclaim done "$MDCLAIM_TASK_ID"` reaches this install, wherever it is.
      env: withOwnBin(process.env),
      ...(by === undefined ? {} : { by }),
      ...(lease === undefined ? {} : { lease }),
      ...(tags ? { tags } : {}),
      ...(section === undefined ? {} : { section }),
      loop,
      untilSettled: has(p, 'until-settled'),
      ...(interval === undefined ? {} : { interval }),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(max === undefined ? {} : { max }),
      ...(grace === undefined ? {} : { grace }),
      ...(retries === undefined ? {} : { retries }),
      ...(retryDelay === undefined ? {} : { retryDelay }),
      ...(maxAttempts === undefined ? {} : { maxAttempts }),
      failOnSignal: has(p, 'fail-on-signal'),
      commit: !has(p, 'no-commit'),
      ...(worktree === undefined ? {} : { worktree }),
      handleSignals: true,
      onEvent,
    });
    if (!loop && result.tasks.length === 0) io.err(`mdclaim: nothing to claim in ${board.location}`);
    return exitCodeForRun({ loop, stoppedBy: result.stoppedBy, tasks: result.tasks });
  } finally {
    events?.close();
  }
};

/** --worktree and the flags that only mean something with it. */
function worktreeFlags(p: Parsed): WorktreeOptions | undefined {
  const trees = one(p, 'trees');
  const base = one(p, 'base');
  const setup = one(p, 'setup');
  const commit = has(p, 'commit');
  if (!has(p, 'worktree')) {
    const stray = [trees && '--trees', base && '--base', setup && '--setup', commit && '--commit'].find(Boolean);
    if (stray) throw usage(`${stray} needs --worktree`);
    return undefined;
  }
  return { ...(trees === undefined ? {} : { trees }), ...(base === undefined ? {} : { base }), ...(setup === undefined ? {} : { setup }), commit };
}
