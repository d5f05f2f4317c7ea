import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PathLocking } from '../src/index.js';
import { describeKinds, kinds } from './contract/kinds.js';
import { CLI } from './helpers/cli.js';

// mdclaim guard as Claude Code runs it: a PreToolUse hook, the tool call as JSON on stdin.

const BOARD = '# Work\n\n- [ ] T-1 edit a {writes: src/a.ts}\n- [ ] T-2 write the docs\n- [ ] T-3 free task\n';

/** Run the guard with this hook input; the environment holds no MDCLAIM_* but what is given. */
function guard(location: string, input: unknown, args: string[] = [], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MDCLAIM_')));
  const r = spawnSync(process.execPath, [CLI, 'guard', '--file', location, ...args], {
    input: typeof input === 'string' ? input : JSON.stringify(input),
    encoding: 'utf8',
    env: { ...clean, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The hook input Claude Code sends before an Edit or Write of `file`. */
const edit = (file: string, cwd: string, tool = 'Edit') => ({
  session_id: 'abc123',
  transcript_path: '/tmp/transcript.jsonl',
  cwd,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: tool,
  tool_input: tool === 'Write' ? { file_path: file, content: 'x' } : { file_path: file, old_string: 'a', new_string: 'b' },
  tool_use_id: 'toolu_01',
});

function denial(stdout: string): string {
  const doc = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  expect(doc.hookSpecificOutput.hookEventName).toBe('PreToolUse');
  expect(doc.hookSpecificOutput.permissionDecision).toBe('deny');
  return doc.hookSpecificOutput.permissionDecisionReason;
}

describeKinds('mdclaim guard on the $name board', (kind) => {
  /** A board where agent-b holds T-1 (declaring src/a.ts) and agent-c has locked docs/ for T-2; and the project directory paths are relative to. */
  async function held() {
    const b = await kind.make(BOARD);
    await b.board.claim('T-1', { by: 'agent-b' });
    await b.board.claim('T-2', { by: 'agent-c' });
    await (b.board as typeof b.board & PathLocking).lockPaths('T-2', { by: 'agent-c', writes: ['docs/'] });
    // A file board's paths are relative to its directory; a database board's to the hook's cwd.
    const root = kind.name === 'file' ? dirname(b.location) : '/work/project-under-test';
    return { ...b, root };
  }

  it('denies an edit of a file another live claim declares, naming the holder', async () => {
    const b = await held();
    const r = guard(b.location, edit(join(b.root, 'src/a.ts'), b.root), ['--by', 'agent-a']);
    expect(r.status).toBe(0);
    expect(denial(r.stdout)).toMatch(/^mdclaim: do not write src\/a\.ts: agent-b holds src\/a\.ts \(write\) on T-1/);
  });

  it('denies a write under a directory another claim has path-locked', async () => {
    const b = await held();
    const r = guard(b.location, edit(join(b.root, 'docs/guide.md'), b.root, 'Write'), ['--by', 'agent-a']);
    expect(r.status).toBe(0);
    expect(denial(r.stdout)).toMatch(/^mdclaim: do not write docs\/guide\.md: agent-c holds docs\/ \(write\) on T-2/);
  });

  it("allows the holder's own edit, by --by or by MDCLAIM_BY, with no output", async () => {
    const b = await held();
    expect(guard(b.location, edit(join(b.root, 'src/a.ts'), b.root), ['--by', 'agent-b'])).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(guard(b.location, edit(join(b.root, 'src/a.ts'), b.root), [], { MDCLAIM_BY: 'agent-b' })).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('counts every holder as someone else when the guard has no name', async () => {
    const b = await held();
    expect(denial(guard(b.location, edit(join(b.root, 'src/a.ts'), b.root)).stdout)).toMatch(/agent-b holds src\/a\.ts/);
  });

  it('allows a file nobody holds, a file outside the tree, and a tool call that writes no file', async () => {
    const b = await held();
    const allowed = { status: 0, stdout: '', stderr: '' };
    expect(guard(b.location, edit(join(b.root, 'src/b.ts'), b.root), ['--by', 'agent-a'])).toEqual(allowed);
    expect(guard(b.location, edit('/elsewhere/src/a.ts', b.root), ['--by', 'agent-a'])).toEqual(allowed);
    expect(guard(b.location, { tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: b.root }, ['--by', 'agent-a'])).toEqual(allowed);
  });

  it('allows the file again once the claim holding it is finished', async () => {
    const b = await held();
    await b.board.done('T-1', { by: 'agent-b' });
    expect(guard(b.location, edit(join(b.root, 'src/a.ts'), b.root), ['--by', 'agent-a'])).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});

describe('mdclaim guard input', () => {
  it('refuses input that is not a hook\'s JSON with one usage line, and writes nothing', async () => {
    const b = await kinds[0]!.make(BOARD);
    const before = await b.bytes();
    const r = guard(b.location, 'not json');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error\[USAGE\]: guard reads the editor hook's JSON on stdin/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await b.bytes()).toEqual(before);
  });
});
