import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repo } from '../helpers/git.js';
import { eventsIn, pidIn, runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// `run --worktree` in a real repository with real commands: ADW's layout, one task at a time per worktree, sections side by side.

const BOARD = `- [ ] loose 1

## Git Worktree api
[] api 1
[⏰] api 2
[⏰] api 3

## Git Worktree web
[] web 1
[⏰] web 2
`;

// Each task logs its start and end (ns), writes and commits a file named by its id. "api 1" and
// "web 1" each wait until both have started: a runner that ran them one after the other never ends them.
const COMMAND = `
set -e
mark=$(printf %s "$MDCLAIM_TASK_TEXT" | tr ' ' -)
echo "start $MDCLAIM_TASK_ID $MDCLAIM_BRANCH $(date +%s%N)" >> "$LOG"
touch "$MARKS/$mark"
case $mark in api-1|web-1)
  n=0
  while [ ! -e "$MARKS/api-1" ] || [ ! -e "$MARKS/web-1" ]; do sleep 0.05; n=$((n+1)); [ $n -lt 2400 ] || exit 9; done ;;
esac
[ "$(pwd)" = "$MDCLAIM_WORKTREE" ] || exit 8
printf '%s\\n' "$MDCLAIM_TASK_TEXT" > "$MDCLAIM_TASK_ID.txt"
git add "$MDCLAIM_TASK_ID.txt"
git commit -q -m "$MDCLAIM_TASK_TEXT"
echo "end $MDCLAIM_TASK_ID $MDCLAIM_BRANCH $(date +%s%N)" >> "$LOG"
`;

interface Span {
  id: string;
  branch: string;
  start: bigint;
  end: bigint;
}

function spans(log: string): Span[] {
  const byId = new Map<string, Partial<Span>>();
  for (const line of log.split('\n').filter(Boolean)) {
    const [what, id, branch, ns] = line.split(' ');
    const s = byId.get(id!) ?? { id: id!, branch: branch! };
    s[what as 'start' | 'end'] = BigInt(ns!);
    byId.set(id!, s);
  }
  return [...byId.values()] as Span[];
}

const overlap = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

describeKinds('mdclaim run --worktree on the $name board', (kind) => {
  it('runs each task in its section\'s worktree and records the commit made there; one task at a time per worktree, sections side by side; the main checkout untouched', async () => {
    const { location, board } = await kind.make(BOARD);
    const r = repo();
    const marks = r.scratch;
    const log = join(marks, 'log');
    const before = r.snapshot();
    const base = r.git(['rev-parse', 'HEAD']).out;

    const end = await runner(location, ['--worktree', '--concurrency', '4', '--until-settled', '--interval', '100ms', '--by', 'r1', '--', 'sh', '-c', COMMAND], {
      cwd: r.dir,
      env: { ...r.env, LOG: log, MARKS: marks },
    }).done;
    expect(end.stderr).not.toMatch(/error\[/);
    expect(end.code).toBe(0);

    const tasks = await board.list();
    expect(tasks.map((t) => t.status)).toEqual(['done', 'done', 'done', 'done', 'done', 'done']);
    for (const t of tasks) {
      const branch = t.section === undefined ? `task-${t.id}` : t.section.replace('Git Worktree ', '');
      // The done marker's commit is on the section's branch and holds the task's file.
      expect(r.git(['merge-base', '--is-ancestor', t.commit!, branch]).status).toBe(0);
      expect(r.git(['show', `${t.commit}:${t.id}.txt`]).out).toBe(t.text);
      expect(r.git(['rev-parse', `${branch}^{commit}`]).status).toBe(0);
    }
    // Each worktree is where ADW puts it, on its branch, from the main checkout's HEAD.
    expect(r.git(['rev-parse', '--abbrev-ref', 'HEAD'], join(r.dir, 'trees', 'api')).out).toBe('api');
    expect(r.git(['merge-base', '--is-ancestor', base, 'web']).status).toBe(0);
    expect(r.git(['rev-list', '--count', `${base}..api`]).out).toBe('3');

    const all = spans(readFileSync(log, 'utf8'));
    expect(all).toHaveLength(6);
    for (const a of all) for (const b of all) if (a !== b && a.branch === b.branch) expect(overlap(a, b), `${a.id} and ${b.id} on ${a.branch}`).toBe(false);
    expect(all.some((a) => all.some((b) => a.branch !== b.branch && overlap(a, b)))).toBe(true);

    expect(r.snapshot()).toBe(before);
  });

  it('leaves the worktree of a runner SIGKILLed mid-task as it was, and the next holder continues in it', async () => {
    const { location, board } = await kind.make('## Git Worktree api\n[] api 1\n');
    const r = repo();
    const pid = join(r.scratch, 'pid');
    const first = runner(location, ['--worktree', '--lease', '2s', '--by', 'r1', '--', 'sh', '-c', 'echo half > wip.txt; echo $$ > "$PIDFILE"; while :; do sleep 0.05; done'], {
      cwd: r.dir,
      env: { ...r.env, PIDFILE: pid },
    });
    await pidIn(pid);
    first.child.kill('SIGKILL');
    await first.done;
    expect(readFileSync(join(r.dir, 'trees', 'api', 'wip.txt'), 'utf8')).toBe('half\n');

    const events = join(r.scratch, 'events');
    const next = await runner(location, ['--worktree', '--until-settled', '--interval', '100ms', '--by', 'r2', '--events', events, '--', 'sh', '-c', 'test -e wip.txt && git add -A && git commit -qm continued'], {
      cwd: r.dir,
      env: r.env,
    }).done;
    expect(next.stderr).not.toMatch(/error\[/);
    expect(next.code).toBe(0);
    const [task] = await board.list();
    expect(task).toMatchObject({ status: 'done', by: 'r2' });
    expect(r.git(['show', `${task!.commit}:wip.txt`]).out).toBe('half');
    expect(r.git(['rev-parse', '--short', 'api']).out).toBe(task!.commit);
    expect(eventsIn(events).find((e) => e.event === 'worktree')).toMatchObject({ branch: 'api', created: false });
  });
});
