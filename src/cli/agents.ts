/** Lines for an AGENTS.md or CLAUDE.md that teach an agent the claim loop on the board at `file` (`absolute`: the same, for the MCP server). */
export function agentInstructions(file: string, absolute: string): string {
  const f = file === './tasks.md' || file === 'tasks.md' ? '' : ` --file ${quote(file)}`;
  const mdclaim = `npx --no-install mdclaim`;
  return `## Tasks

Work comes from ${file}, shared with other agents. Take and finish tasks only
through mdclaim (${mdclaim}); never change a task's [ ]/[🟡]/[✅]/[❌] marker by hand.
Pick a name for yourself (NAME below) and keep it for the whole session.

1. Claim: \`${mdclaim} next${f} --by NAME --json\` prints {"task": {"id", "text", …}}.
   Exit 3: nothing is claimable; stop. Work only on the task it gave you.
2. Keep it: \`${mdclaim} heartbeat ID${f} --by NAME\` at least every 10 minutes
   (a claim lapses 30 minutes after its last heartbeat, and another agent may take it).
3. Finish: \`${mdclaim} done ID${f} --by NAME\`, or when you cannot:
   \`${mdclaim} fail ID${f} --by NAME --reason "why"\`. Then claim the next one.
4. Before editing a file the task does not name in {writes: …}:
   \`${mdclaim} paths lock ID${f} --by NAME --writes path/to/file\`.

Exit status: 0 ok; 3 nothing to do; 4 conflict (someone else holds it, or your claim
lapsed and was taken: stop work on that task, it is no longer yours); 2 a mistake in the
command; 1 a failure (I/O, lock timeout): try again.
Add newly found work with \`${mdclaim} add "text"${f}\`.

Over MCP instead of the shell: \`claude mcp add mdclaim -- ${mdclaim} mcp --file ${quote(absolute)}\`
`;
}

/** A path as one shell word. */
const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
