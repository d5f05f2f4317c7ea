import { expect, it } from 'vitest';
import { repo } from '../helpers/git.js';
import { runner } from '../helpers/runner.js';
import { describeKinds } from './kinds.js';

// `run --worktree` on worktree headings as the ADW tools write them: `## Worktree: NAME`,
// `## Worktree NAME`, `## Git Worktree NAME {id}`, and a `###` inside a worktree section.

const BOARD = `# Board

## Worktree: web
[] web 1
[⏰] web 2

## Worktree phase-02
[] phase 1

## Git Worktree feature-auth {af_wt_001}
- [ ] auth 1

## Git Worktree api
[] api 1

### Backend
[⏰] api 2
`;

// Each task commits a file named after its text, in the worktree it runs in, after checking that the
// file of the task before it in its section is there (the [⏰] chain runs on its predecessor's commit).
const COMMAND = `
set -e
mark=$(printf %s "$MDCLAIM_TASK_TEXT" | tr ' ' -)
case $mark in web-2) test -e web-1 ;; api-2) test -e api-1 ;; esac
[ "$(pwd)" = "$MDCLAIM_WORKTREE" ] || exit 8
echo "$MDCLAIM_BRANCH" > "$mark"
git add "$mark"
git commit -q -m "$MDCLAIM_TASK_TEXT"
`;

describeKinds('mdclaim run --worktree on ADW worktree headings, $name board', (kind) => {
  it('runs each section in the worktree its heading names, a sub-heading inside it included, and a [⏰] after the sub-heading waits for the task above it', async () => {
    const { location, board } = await kind.make(BOARD);
    // The [⏰] under ### Backend is in the api section: it waits for api 1.
    expect((await board.list()).map((t) => [t.text, t.section])).toEqual([
      ['web 1', 'Worktree: web'],
      ['web 2', 'Worktree: web'],
      ['phase 1', 'Worktree phase-02'],
      ['auth 1', 'Git Worktree feature-auth {af_wt_001}'],
      ['api 1', 'Git Worktree api'],
      ['api 2', 'Git Worktree api'],
    ]);
    expect((await board.list()).map((t) => t.status)).toEqual(['open', 'blocked', 'open', 'open', 'open', 'blocked']);
    const r = repo();
    const end = await runner(location, ['--worktree', '--concurrency', '2', '--until-settled', '--interval', '100ms', '--by', 'r1', '--', 'sh', '-c', COMMAND], {
      cwd: r.dir,
      env: r.env,
    }).done;
    expect(end.stderr).not.toMatch(/error\[/);
    expect(end.code).toBe(0);
    const tasks = await board.list();
    expect(tasks.map((t) => t.status)).toEqual(['done', 'done', 'done', 'done', 'done', 'done']);
    const branchOf: Record<string, string> = { web: 'web', phase: 'phase-02', auth: 'feature-auth', api: 'api' };
    for (const t of tasks) {
      const branch = branchOf[t.text.split(' ')[0]!]!;
      // Committed on the section's branch, in trees/NAME, where the task above it was committed.
      expect(r.git(['show', `${t.commit}:${t.text.replace(' ', '-')}`]).out).toBe(branch);
      expect(r.git(['merge-base', '--is-ancestor', t.commit!, branch]).status).toBe(0);
    }
  });
});
