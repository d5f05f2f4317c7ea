import type { TaskBoard as Board } from '../board/types.js';
import { DEFAULT_LEASE } from '../board/board.js';
import { sectionMatches } from '../board/claim.js';
import { parseDuration } from '../board/duration.js';
import { usage } from '../errors.js';
import type { Task } from '../format/task.js';
import { has, one, type Parsed } from './args.js';
import { EXIT } from './exit.js';
import { claimant, printJson, type Output } from './run.js';

type Command = (board: Board, p: Parsed, io: Output) => Promise<number>;

const STATUSES = ['open', 'blocked', 'claimed', 'done', 'failed'];

function lease(p: Parsed): string {
  const value = one(p, 'lease') ?? DEFAULT_LEASE;
  parseDuration(value, '--lease');
  return value;
}

function expires(task: Task, leaseValue: string): string {
  const at = Date.parse(task.claimedAt!) + parseDuration(leaseValue);
  return new Date(at).toISOString().slice(0, 19) + 'Z';
}

/** Print a claimed task the way next/claim do. */
function claimed(task: Task, p: Parsed, io: Output, leaseValue: string): number {
  if (has(p, 'json')) printJson(io, { task });
  else if (has(p, 'quiet')) io.out(task.id);
  else io.out(`claimed ${task.id} by ${task.by} (lease expires ${expires(task, leaseValue)})`);
  return EXIT.OK;
}

function changed(task: Task, p: Parsed, io: Output, line: string): number {
  if (has(p, 'json')) printJson(io, { task });
  else io.out(line);
  return EXIT.OK;
}

const task = (p: Parsed) => p.positionals[0]!;

export const commands: Record<string, Command> = {
  async list(board, p, io) {
    const status = one(p, 'status');
    if (status !== undefined && !STATUSES.includes(status)) throw usage(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
    const section = one(p, 'section');
    const tags = p.flags.get('tag') ?? [];
    const tasks = (await board.list()).filter(
      (t) => (status === undefined || t.status === status) && (section === undefined || sectionMatches(t.section, section)) && tags.every((g) => t.tags.includes(g)),
    );
    if (has(p, 'json')) printJson(io, { tasks });
    else {
      const w = Math.max(0, ...tasks.map((t) => t.id.length));
      for (const t of tasks) io.out(`${t.id.padEnd(w)}  ${(t.status + (t.by ? ` by ${t.by}` : '')).padEnd(20)}  ${t.text}`);
    }
    return EXIT.OK;
  },

  async next(board, p, io) {
    const by = claimant(p, true);
    const leaseValue = lease(p);
    const section = one(p, 'section');
    const tags = p.flags.get('tag');
    const picked = await board.next({ by, lease: leaseValue, ...(tags ? { tags } : {}), ...(section === undefined ? {} : { section }) });
    if (!picked) {
      if (has(p, 'json')) printJson(io, { task: null });
      else io.err(`nothing to claim in ${board.location}`);
      return EXIT.NO_TASK;
    }
    return claimed(picked, p, io, leaseValue);
  },

  async claim(board, p, io) {
    const leaseValue = lease(p);
    return claimed(await board.claim(task(p), { by: claimant(p, true), lease: leaseValue }), p, io, leaseValue);
  },

  async heartbeat(board, p, io) {
    const leaseValue = lease(p);
    const t = await board.heartbeat(task(p), { by: claimant(p, false) });
    return changed(t, p, io, `renewed ${t.id} by ${t.by} (lease expires ${expires(t, leaseValue)})`);
  },

  async done(board, p, io) {
    const commit = one(p, 'commit');
    const t = await board.done(task(p), { by: claimant(p, false), ...(commit === undefined ? {} : { commit }) });
    return changed(t, p, io, `done ${t.id} by ${t.by}${t.commit ? ` at ${t.commit}` : ''}`);
  },

  async fail(board, p, io) {
    const reason = one(p, 'reason');
    const t = await board.fail(task(p), { by: claimant(p, false), ...(reason === undefined ? {} : { reason }) });
    return changed(t, p, io, `failed ${t.id} by ${t.by}${t.reason ? `: ${t.reason}` : ''}`);
  },

  async release(board, p, io) {
    const by = claimant(p, false);
    const t = await board.release(task(p), { by });
    return changed(t, p, io, `released ${t.id} by ${by}`);
  },

  async reap(board, p, io) {
    const dryRun = has(p, 'dry-run');
    const ttl = one(p, 'ttl');
    const reaped = await board.reap({ ...(ttl === undefined ? {} : { ttl }), dryRun, includeUntimed: has(p, 'include-untimed') });
    if (has(p, 'json')) printJson(io, { reaped, ...(dryRun ? { dryRun } : {}) });
    else {
      for (const t of reaped) {
        io.out(`${dryRun ? 'would reopen' : 'reopened'} ${t.id} (claimed by ${t.by ?? 'someone unnamed'}${t.claimedAt ? ` since ${t.claimedAt}` : ''})`);
      }
    }
    return EXIT.OK;
  },

  async add(board, p, io) {
    const section = one(p, 'section');
    const t = await board.add(p.positionals.join(' '), section === undefined ? {} : { section });
    if (has(p, 'quiet') && !has(p, 'json')) io.out(t.id);
    else changed(t, p, io, `added ${t.id} at line ${t.line}${t.section ? ` in "${t.section}"` : ''}`);
    return EXIT.OK;
  },
};

