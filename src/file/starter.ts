/**
 * The board `mdclaim init` writes: short enough to read at once, and showing
 * each thing a board holds (sections, open tasks, a [⏰], tags, a {writes: …}).
 * The comment is an HTML block, which is never a task.
 */
export const STARTER_BOARD = `# Tasks

<!--
This board is claimed through mdclaim, which locks it around every change:
  mdclaim next --by NAME        claim the first claimable task (exit 3: none)
  mdclaim heartbeat ID --by NAME   keep a long claim alive (it lapses after 30m)
  mdclaim done ID --by NAME     or: mdclaim fail ID --by NAME --reason "why"
  mdclaim list                  every task and its status
Markers: [ ] open, [⏰] waits for every task above it in its section,
[🟡, who, time] claimed, [✅, who] done, [❌, who] failed.
{tags} let \`next --tag T\` choose; {writes: path} keeps two tasks off one file.
Add tasks with \`mdclaim add "text"\`; edit by hand with \`mdclaim edit\`.
-->

## Getting started

- [ ] Claim this task, then mark it done {example}
- [ ] Write a first paragraph for the README {docs} {writes: README.md}
- [⏰] Review the README once the tasks above are done {docs}

## Backend

- [ ] Add a /health endpoint {backend}
- [ ] Log each request's id {backend}
`;
