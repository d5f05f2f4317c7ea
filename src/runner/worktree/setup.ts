import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { MdclaimError } from '../../errors.js';
import { startTime } from '../../platform/process-start.js';
import { sleep } from '../../storage/deadline.js';
import { groupHasLiveMembers, ProcessGroup } from '../group.js';
import type { Watchdog } from '../watchdog.js';
import type { Entered } from './trees.js';
import { worktreeGitDir } from './record.js';

/** How a setup runs: as the task's command does, in a process group of its own that the runner's watchdog holds. */
export interface SetupOptions {
  graceMs: number;
  watchdog: Watchdog;
  prefix: string | null;
  stderr: Writable;
}

/**
 * A task's setup while it runs, so that what ends the task ends it: the
 * runner's signals (the first passed on as to the command, SIGKILL after the
 * grace; a second kills at once) and a claim found lost.
 */
export class SetupControl {
  private group: ProcessGroup | undefined;
  private stopping: NodeJS.Signals | undefined;
  private killed = false;

  constructor(private readonly graceMs: number) {}

  /** Has the setup been told to stop (a signal, a lost claim)? Then no setup starts. */
  get stopped(): boolean {
    return this.stopping !== undefined || this.killed;
  }

  stop(sig: NodeJS.Signals): void {
    this.stopping ??= sig;
    void this.group?.stop(sig, this.graceMs);
  }

  kill(): void {
    this.killed = true;
    void this.group?.kill();
  }

  /** Run `argv` as the setup's group: started held at its gate, let go unless already stopped. */
  async run(argv: readonly string[], opts: SetupOptions & { env: NodeJS.ProcessEnv; cwd: string }, started: (pgid: number) => void) {
    const group = await ProcessGroup.start(argv, { ...opts, stdout: opts.stderr, stdoutToStderr: true });
    this.group = group;
    started(group.pid);
    if (this.killed) void group.kill();
    else if (this.stopping !== undefined) void group.stop(this.stopping, this.graceMs);
    else group.go();
    try {
      return await group.exited;
    } finally {
      this.group = undefined;
    }
  }
}

const DONE = 'mdclaim-setup-done';
const RUNNING = 'mdclaim-setup-running';

/**
 * Run `setup` once in the worktree, to its end, under the claim. A mark in
 * the worktree's own git directory says it ran to its end; another marks the
 * process group of one running, so a holder that took the worktree over
 * waits for a setup started under the claim before it (its runner frozen,
 * say, or killed, its watchdog still stopping it) to end before it looks at
 * the mark again: never two setups at once in one worktree. The done mark is
 * written only under a claim renewed right before it.
 */
export async function setUpOnce(setup: string, w: Entered, env: NodeJS.ProcessEnv, opts: SetupOptions, ctl: SetupControl, renew: () => Promise<boolean>, waits: (pgid: number) => void): Promise<void> {
  const gitDir = await worktreeGitDir(w.dir);
  await untilOtherSetupEnds(join(gitDir, RUNNING), ctl, waits);
  if (existsSync(join(gitDir, DONE)) || ctl.stopped) return;
  let exit;
  try {
    exit = await ctl.run(['/bin/sh', '-c', setup], { ...opts, env, cwd: w.dir }, (pgid) => writeFileSync(join(gitDir, RUNNING), `${pgid} ${startTime(pgid, process.platform) ?? ''}\n`));
  } catch (err) {
    throw new MdclaimError('WORKTREE', `--setup cannot start in ${w.dir}: ${(err as Error).message}; the task was given back`);
  }
  rmSync(join(gitDir, RUNNING), { force: true });
  if (exit.code !== 0) {
    const how = exit.signal === null ? `exit ${exit.code}` : `killed by ${exit.signal}`;
    throw new MdclaimError('WORKTREE', `--setup failed in ${w.dir} (${how}${exit.lastStderrLine === '' ? '' : `: ${exit.lastStderrLine}`}); the task was given back`);
  }
  if (await renew()) writeFileSync(join(gitDir, DONE), `${setup}\n`);
}

/**
 * Wait while the setup whose group the mark names still has a live member.
 * A mark a SIGKILLed runner left names a group long gone, whose number a new
 * group's leader may have taken since: one whose leader started at another
 * time than the mark says is not waited for.
 */
async function untilOtherSetupEnds(mark: string, ctl: SetupControl, waits: (pgid: number) => void): Promise<void> {
  let pgid: number;
  let started: string | undefined;
  try {
    const [group, start] = readFileSync(mark, 'utf8').trim().split(' ');
    pgid = Number(group);
    started = start === '' ? undefined : start;
  } catch {
    return;
  }
  if (!Number.isSafeInteger(pgid) || pgid <= 1 || !groupHasLiveMembers(pgid)) return;
  const leader = startTime(pgid, process.platform);
  if (started !== undefined && typeof leader === 'string' && leader !== 'zombie' && leader !== started) return;
  waits(pgid);
  while (groupHasLiveMembers(pgid) && !ctl.stopped) await sleep(100);
}
