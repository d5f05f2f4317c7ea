// The tools `mdclaim mcp` offers, as a model reads them: what each does, when
// to call it, what its outcomes mean. Their names are a public contract.

type Schema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, Schema>; required?: string[]; additionalProperties: false };
}

const id: Schema = { type: 'string', description: 'The task id, as next, claim or list gave it (for example "a1b2c3" or "T-12").' };
const lease: Schema = {
  type: 'string',
  description: 'How long the claim stays live without a heartbeat, for example "5m" (at least 2s; default: the server\'s --lease). While this session is connected the server renews it for you; it matters only if the session dies.',
};
const paths = (what: string): Schema => ({
  type: 'array',
  items: { type: 'string' },
  description: `Paths ${what}, relative to the board's directory; a directory ends in "/" (for example ["src/api/", "package.json"]).`,
});
const maxAttempts: Schema = {
  type: 'integer',
  minimum: 1,
  description: 'An attempts budget: a lapsed claim whose task has been claimed this many times is parked as failed ("abandoned after N attempts") instead of taken over, so a task that kills whoever works on it stops coming back.',
};
const section: Schema = { type: 'string', description: 'A section of the board: the text of a heading, or an ADW worktree name.' };

const ERRORS = 'A refusal comes back as an error whose text is one line "error[CODE]: message": CONFLICT (held by someone else, named; or no longer yours), NOT_FOUND (no such task), USAGE (a bad argument).';

function tool(name: string, description: string, properties: Record<string, Schema>, required: string[] = []): ToolSpec {
  return { name, description, inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false } };
}

export const TOOLS: readonly ToolSpec[] = [
  tool(
    'next',
    'Claim the first task you may work on now (open, not blocked by unfinished tasks above it, no path of it held by another live claim), in board order. Call it when you need work. Returns {"task": {...}} with the task you now hold, or {"task": null} when nothing is claimable (not an error: there is no work for you right now). The claim stays yours while this session is connected; finish it with done, fail or release.',
    { tags: { type: 'array', items: { type: 'string' }, description: 'Only tasks that carry every one of these tags (for example ["backend"]).' }, section, lease, max_attempts: maxAttempts },
  ),
  tool('claim', `Claim one task by its id, when you were told which task to do. Returns {"task": {...}}. A task held by a live claim is refused even when the claim is under your own name (a claim you hold stays yours while connected). ${ERRORS}`, { id, lease, max_attempts: maxAttempts }, ['id']),
  tool(
    'heartbeat',
    `Renew a claim you hold. You rarely need it: the server renews every claim of this session on its own while you are connected. Call it to check that a task is still yours. ${ERRORS}`,
    { id },
    ['id'],
  ),
  tool(
    'done',
    `Mark a task you hold done, once its work is finished (and committed, if you commit). Returns {"task": {...}}. CONFLICT means the task is no longer yours (another session took it over after your claim lapsed): do not redo it. ${ERRORS}`,
    { id, commit: { type: 'string', description: 'The commit that did the work, for example the output of git rev-parse --short HEAD.' } },
    ['id'],
  ),
  tool(
    'fail',
    `Mark a task you hold failed, when you tried and it cannot be done; the reason is kept on the task for a person. ${ERRORS}`,
    { id, reason: { type: 'string', description: 'Why it failed, in one line.' } },
    ['id'],
  ),
  tool('release', `Give a task you hold back, open for anyone, when you stop working on it without finishing it. ${ERRORS}`, { id }, ['id']),
  tool(
    'retry',
    `Give a task you hold back for a later try, when it failed for a reason that may pass (a flaky test, a service down): it is open again, its attempt is counted on its line, and no one (you included) may claim it before the delay is over. Returns {"task": {...}} with its attempts and notBefore. ${ERRORS}`,
    { id, delay: { type: 'string', description: 'How long the task waits before anyone may claim it again, for example "10m" (rounded up to the second).' } },
    ['id', 'delay'],
  ),
  tool(
    'list',
    'List the board\'s tasks with their status (open, blocked, claimed, done, failed), holder and claim time, and claimable: whether claim of it would succeed now (else blockedBy, waitsFor, retryInMs or refused say why); a task that waits for others ({after: …}) has after: each task it waits for, by id, with its status. Returns {"tasks": [...]}, in board order; filters narrow it. Reading only: it claims nothing.',
    {
      status: { type: 'string', enum: ['open', 'blocked', 'claimed', 'done', 'failed'], description: 'Only tasks in this status.' },
      tag: { type: 'string', description: 'Only tasks with this tag.' },
      section,
    },
  ),
  tool(
    'add',
    'Append a new open task to the board, for work you found that someone should do later (do not add what you are about to do yourself: claim it instead). Returns {"task": {...}} with its id.',
    { text: { type: 'string', description: 'The task in one line, for example "Fix the flaky login test #backend {writes: test/login.test.ts}".' }, section: { ...section, description: 'The section to append it to (created if missing); default: the end of the board.' },
      after: { type: 'array', items: { type: 'string' }, description: 'Tasks it waits for, by id or the start of one, or "section NAME": it is claimable only once they are all done.' } },
    ['text'],
  ),
  tool(
    'paths_check',
    'Before editing files, check that no live claim of someone else holds them. Returns {"paths": [...]}: the holds of your own claims that overlap (empty: nobody holds them). CONFLICT names the task and holder in your way: leave those files alone.',
    { writes: paths('you are about to write'), reads: paths('you only read') },
  ),
  tool(
    'paths_lock',
    `Lock paths for a task you hold, so no one else claims work on them or edits them while you do; readers share, a writer excludes everyone. Released with the task, or with paths_unlock. Returns {"task": {...}} with its locks. ${ERRORS}`,
    { id, writes: paths('to write'), reads: paths('to read') },
    ['id'],
  ),
  tool(
    'paths_unlock',
    `Let go of a task's path locks once you are done with those files (never of paths its line declares). ${ERRORS}`,
    { id, paths: paths('to unlock; all of the task\'s locks when omitted') },
    ['id'],
  ),
];

/** What the server tells the client about itself and who it claims as. */
export function instructions(by: string, location: string): string {
  return [
    `mdclaim: race-safe task claims on the shared board ${location}. Several agents work from it at once; a task you claim is yours alone until you finish it.`,
    `This session claims as "${by}". Your claims stay live while you are connected (the server renews them) and are given back when you disconnect.`,
    'Loop: next -> do the work -> done (or fail with a reason, release to give it back, or retry with a delay to try again later). {"task": null} from next means there is nothing to do now.',
    'Before editing files another agent might touch, call paths_check (or paths_lock for the task you hold). An error "error[CONFLICT]: ..." names who holds what; leave it to them.',
  ].join('\n');
}
