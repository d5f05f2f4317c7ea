import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../src/index.js';
import { describeKinds, fileKind } from './contract/kinds.js';
import { CLI } from './helpers/cli.js';
import { stopOutsideLock } from './helpers/locks.js';
import { connect, until } from './helpers/mcp.js';

// mdclaim mcp through the SDK's own client over real stdio, on every kind of board.

const TOOLS = ['next', 'claim', 'heartbeat', 'done', 'fail', 'release', 'retry', 'list', 'add', 'paths_check', 'paths_lock', 'paths_unlock'];

const board = (n: number) => `# Work\n\n${Array.from({ length: n }, (_, i) => `- [ ] T-${i + 1} task ${i + 1}\n`).join('')}`;

/**
 * Wait for a session's renewals to carry a claim's time to `ms` or later,
 * reaping as a reaper would on every look and failing if it finds anything
 * lapsed; the task as it then is.
 */
async function renewedPast(b: { board: { list(): Promise<Task[]>; reap(): Promise<Task[]> } }, id: string, ms: number): Promise<Task> {
  return until(
    `${id} renewed to ${new Date(ms).toISOString()}`,
    async () => {
      expect(await b.board.reap()).toEqual([]);
      return (await b.board.list()).find((t) => t.id === id)!;
    },
    (t) => t.status === 'claimed' && Date.parse(t.claimedAt!) >= ms,
  );
}

describe('mdclaim mcp', () => {
  it('lists every tool by its name, each with a JSON schema and a description for a model', async () => {
    const b = await fileKind.make(board(1));
    const s = await connect(b.location, ['--by', 'agent-1']);
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(60);
    }
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema;
    expect(schema('next').properties).toHaveProperty('tags', expect.objectContaining({ type: 'array' }));
    expect(Object.keys(schema('next').properties!)).toEqual(['tags', 'section', 'lease', 'max_attempts']);
    expect(schema('claim').required).toEqual(['id']);
    expect(schema('retry').required).toEqual(['id', 'delay']);
    expect(Object.keys(schema('paths_unlock').properties!)).toEqual(['id', 'paths']);
    expect(Object.keys(schema('list').properties!)).toEqual(['status', 'tag', 'section']);
    expect(schema('add').required).toEqual(['text']);
    expect(s.client.getInstructions()).toContain('"agent-1"');
  });

  it('tells the client the name it made up for the session, and claims under it', async () => {
    const b = await fileKind.make(board(1));
    const s = await connect(b.location);
    const by = /claims as "(mcp-[0-9a-f]{8})"/.exec(s.client.getInstructions()!)![1]!;
    const r = await s.call('next');
    expect(r.doc).toMatchObject({ task: { id: 'T-1', by } });
  });

  it('answers a refusal with the CLI\'s one line, and an empty board with {"task": null}, not an error', async () => {
    const b = await fileKind.make(board(1));
    const s = await connect(b.location, ['--by', 'a']);
    expect(await s.call('claim', { id: 'nope' })).toMatchObject({ isError: true, text: 'error[NOT_FOUND]: no task with id nope, nor one whose id starts with it' });
    expect(await s.call('claim', { id: 'T-1', lease: '1s' })).toMatchObject({ isError: true, text: expect.stringMatching(/^error\[USAGE\]: lease must be at least 2s/) });
    expect(await s.call('done', { id: 'T-1', colour: 'red' })).toMatchObject({ isError: true, text: 'error[USAGE]: done does not take "colour" (it takes: id, commit)' });
    const first = await s.call('next');
    expect(first.isError).toBe(false);
    expect(JSON.parse(first.text)).toEqual(first.doc);
    const empty = await s.call('next');
    expect(empty).toEqual({ isError: false, text: '{"task":null}', doc: { task: null } });
    expect((await s.call('list', { status: 'claimed' })).doc).toMatchObject({ tasks: [{ id: 'T-1', by: 'a' }] });
  });
});

describeKinds('mdclaim mcp: retries, on the $name board', (kind) => {
  it('gives a task back for a retry that no session may claim before its delay, its attempt counted', async () => {
    const b = await kind.make(board(1));
    const s = await connect(b.location, ['--by', 'agent-r']);
    expect((await s.call('next')).doc).toMatchObject({ task: { id: 'T-1', by: 'agent-r' } });
    const back = await s.call('retry', { id: 'T-1', delay: '1h' });
    expect(back.isError, back.text).toBe(false);
    expect(back.doc).toMatchObject({ task: { id: 'T-1', status: 'open', attempts: 1, notBefore: expect.stringMatching(/Z$/) } });
    // Waiting for its time: nothing to claim, and a claim by id is refused saying when.
    expect((await s.call('next')).doc).toEqual({ task: null });
    expect(await s.call('claim', { id: 'T-1' })).toMatchObject({ isError: true, text: expect.stringMatching(/^error\[CONFLICT\]: .*not before/) });
    expect(await s.call('retry', { id: 'T-1' })).toMatchObject({ isError: true, text: 'error[USAGE]: delay is required' });
  });

  it('parks a lapsed claim at the budget max_attempts names, instead of taking it over', async () => {
    const lapsed = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const b = await kind.make(`# Work\n\n- [🟡, gone, ${lapsed}, 5m] T-1 task 1 // Attempts: 2\n- [ ] T-2 task 2\n`);
    const s = await connect(b.location, ['--by', 'agent-m']);
    expect(await s.call('next', { max_attempts: 0 })).toMatchObject({ isError: true, text: expect.stringMatching(/^error\[USAGE\]: max_attempts must be a whole number/) });
    expect((await s.call('next', { max_attempts: 2 })).doc).toMatchObject({ task: { id: 'T-2', by: 'agent-m' } });
    expect((await s.call('list', { status: 'failed' })).doc).toMatchObject({ tasks: [{ id: 'T-1', reason: 'abandoned after 2 attempts; last held by gone' }] });
  });
});

describe('the SDK', () => {
  /** Does a CLI run with these arguments load the MCP SDK? Told by a preload that lists the modules loaded at exit. */
  function loadsSdk(args: string[], input = ''): boolean {
    const dir = mkdtempSync(join(tmpdir(), 'mdclaim-preload-'));
    const preload = join(dir, 'report.cjs');
    // The SDK's server ships bundled as dist/mcp/sdk.cjs; the package itself, were it ever loaded, counts too.
    writeFileSync(preload, "process.on('exit', () => { if (Object.keys(require.cache).some((k) => k.includes('@modelcontextprotocol') || /[\\\\/]mcp[\\\\/]sdk\\.cjs$/.test(k))) process.stderr.write('SDK LOADED'); });");
    try {
      const r = spawnSync(process.execPath, ['--require', preload, CLI, ...args], { input, encoding: 'utf8' });
      return r.stderr.includes('SDK LOADED');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('is loaded by mdclaim mcp only: every other command starts without it', async () => {
    const b = await fileKind.make(board(1));
    expect(loadsSdk(['list', '--file', b.location])).toBe(false);
    expect(loadsSdk(['next', '--file', b.location, '--by', 'a'])).toBe(false);
    expect(loadsSdk(['guard', '--file', b.location], '{"tool_name":"Bash","tool_input":{}}')).toBe(false);
    // The same probe sees it where it is loaded: the server reads stdin to its end at once and exits.
    expect(loadsSdk(['mcp', '--file', b.location])).toBe(true);
  });
});

describeKinds('mdclaim mcp on the $name board', (kind) => {
  const tasks = async (b: { board: { list(): Promise<Task[]> } }) => b.board.list();

  it('lets racing sessions drain a board: every task claimed and finished exactly once', async () => {
    const N = 24;
    const b = await kind.make(board(N));
    const sessions = await Promise.all([1, 2, 3, 4].map((i) => connect(b.location, ['--by', `agent-${i}`])));
    const finished = await Promise.all(
      sessions.map(async (s) => {
        const mine: string[] = [];
        for (;;) {
          const r = await s.call('next');
          expect(r.isError).toBe(false);
          const t = r.doc['task'] as Task | null;
          if (t === null) return mine;
          const d = await s.call('done', { id: t.id });
          expect(d.isError, d.text).toBe(false);
          mine.push(t.id);
        }
      }),
    );
    const all = finished.flat();
    expect(all.length).toBe(N);
    expect(new Set(all).size).toBe(N);
    // They raced: more than one session won tasks.
    expect(finished.filter((m) => m.length > 0).length).toBeGreaterThan(1);
    expect((await tasks(b)).every((t) => t.status === 'done')).toBe(true);
  });

  // The tests that wait for renewals or a lapse on the real clock run at once: each has a board and sessions of its own.
  it.concurrent("keeps a session's 3-second claim live for many seconds while it is connected, and refuses it to another session", async () => {
    const b = await kind.make(board(2));
    const a = await connect(b.location, ['--by', 'agent-a', '--lease', '3s']);
    const other = await connect(b.location, ['--by', 'agent-b']);
    const claimed = (await a.call('claim', { id: 'T-1' })).doc['task'] as Task;
    expect(claimed).toMatchObject({ id: 'T-1', by: 'agent-a', lease: '3s' });
    // Kept past the lease it was claimed with, twice over, by the session's renewals;
    // whatever a reaper sees meanwhile, the claim is live: nothing lapsed to reopen.
    const held = await renewedPast(b, 'T-1', Date.parse(claimed.claimedAt!) + 6000);
    expect(held).toMatchObject({ status: 'claimed', by: 'agent-a' });
    expect(Date.parse(held.expiresAt!)).toBeGreaterThan(Date.now() - 1000);
    const claim = await other.call('claim', { id: 'T-1' });
    expect(claim).toMatchObject({ isError: true, text: expect.stringMatching(/^error\[CONFLICT\]: T-1 "task 1" already claimed by agent-a/) });
    const done = await other.call('done', { id: 'T-1' });
    expect(done).toMatchObject({ isError: true, text: 'error[CONFLICT]: T-1 "task 1" is claimed by agent-a, not agent-b' });
    expect((await a.call('done', { id: 'T-1' })).doc).toMatchObject({ task: { id: 'T-1', status: 'done', by: 'agent-a' } });
  });

  it.concurrent('goes on renewing a claim after the session renews or locks paths on it itself', async () => {
    const b = await kind.make(board(1));
    const a = await connect(b.location, ['--by', 'agent-a', '--lease', '3s']);
    const other = await connect(b.location, ['--by', 'agent-b']);
    await a.call('claim', { id: 'T-1' });
    expect((await a.call('heartbeat', { id: 'T-1' })).doc).toMatchObject({ task: { id: 'T-1', by: 'agent-a' } });
    expect((await a.call('paths_lock', { id: 'T-1', writes: ['src/'] })).doc).toMatchObject({ task: { locks: [{ path: 'src/', mode: 'write' }] } });
    expect(await other.call('paths_check', { writes: ['src/a.ts'] })).toMatchObject({ isError: true, text: expect.stringMatching(/^error\[CONFLICT\]: agent-a holds src\/ \(write\) on T-1/) });
    expect((await a.call('paths_check', { writes: ['src/a.ts'] })).doc).toMatchObject({ paths: [{ path: 'src/', task: 'T-1' }] });
    // Renewed by the session past a lease from its own last write, the reaper finding nothing lapsed.
    const written = (await tasks(b)).find((t) => t.id === 'T-1')!;
    await renewedPast(b, 'T-1', Date.parse(written.claimedAt!) + 4000);
    expect((await a.call('paths_unlock', { id: 'T-1' })).doc).toMatchObject({ task: { id: 'T-1', by: 'agent-a' } });
    expect((await other.call('paths_check', { writes: ['src/a.ts'] })).doc).toEqual({ paths: [] });
    expect((await a.call('done', { id: 'T-1', commit: 'abc1234' })).doc).toMatchObject({ task: { status: 'done', commit: 'abc1234' } });
  });

  it.concurrent('leaves the claims of a server killed outright to lapse, for the reaper', async () => {
    const b = await kind.make(board(2));
    const s = await connect(b.location, ['--by', 'agent-a', '--lease', '3s']);
    await s.call('next');
    process.kill(s.pid, 'SIGKILL');
    await s.exited;
    expect((await tasks(b))[0]).toMatchObject({ status: 'claimed', by: 'agent-a' });
    const reaped = await until('the claim to lapse', () => b.board.reap(), (r) => r.length > 0);
    expect(reaped.map((t) => t.id)).toEqual(['T-1']);
    expect((await tasks(b))[0]!.status).toBe('open');
  });

  it.concurrent('reports a claim another session took over on the next call on it, and stops renewing it', async () => {
    const b = await kind.make(board(1));
    const a = await connect(b.location, ['--by', 'agent-a', '--lease', '3s']);
    const other = await connect(b.location, ['--by', 'agent-b']);
    await a.call('claim', { id: 'T-1' });
    // A paused session renews nothing: its claim lapses and another takes it over.
    await stopOutsideLock(a.pid, b.location);
    try {
      await until('a takeover', () => other.call('claim', { id: 'T-1' }), (r) => !r.isError);
    } finally {
      process.kill(a.pid, 'SIGCONT');
    }
    // The first session's beat, overdue, runs as it wakes, before it reads its next call;
    // a holder write waits for a beat in flight: once done is answered, the beat has had its go.
    expect(await a.call('done', { id: 'T-1' })).toMatchObject({ isError: true, text: 'error[CONFLICT]: T-1 "task 1" is claimed by agent-b, not agent-a' });
    const taken = (await tasks(b))[0]!;
    expect(taken).toMatchObject({ status: 'claimed', by: 'agent-b' });
    // Closing the first session gives back nothing of the second's.
    await a.client.close();
    await a.exited;
    expect((await tasks(b))[0]).toMatchObject({ status: 'claimed', by: 'agent-b', claimedAt: taken.claimedAt });
  });

  it('releases every claim of a session when its client closes', async () => {
    const b = await kind.make(board(3));
    const s = await connect(b.location, ['--by', 'agent-a']);
    await s.call('next');
    await s.call('next');
    expect((await tasks(b)).filter((t) => t.status === 'claimed').length).toBe(2);
    await s.client.close();
    await s.exited;
    // Released before the server exited: no waiting for a reaper.
    expect((await tasks(b)).map((t) => t.status)).toEqual(['open', 'open', 'open']);
    // By the end of its input, not by the SIGTERM a client sends one that lingers.
    expect(s.stderr()).toContain('the client disconnected; released T-1, T-2');
  });

  it('releases them on SIGTERM too', async () => {
    const b = await kind.make(board(2));
    const s = await connect(b.location, ['--by', 'agent-a']);
    await s.call('next');
    process.kill(s.pid, 'SIGTERM');
    await s.exited;
    expect((await tasks(b)).map((t) => t.status)).toEqual(['open', 'open']);
  });

  it('loses nothing when the transport drops in the middle of calls', async () => {
    const b = await kind.make(board(4));
    const s = await connect(b.location, ['--by', 'agent-a']);
    const first = (await s.call('next')).doc['task'] as Task;
    // Sent, then the client goes before any answer comes.
    const pending = [s.call('done', { id: first.id }), s.call('next'), s.call('next')].map((p) => p.catch(() => null));
    await s.client.close();
    await s.exited;
    await Promise.all(pending);
    const after = await tasks(b);
    // No claim is left behind; whatever was finished stays finished.
    expect(after.filter((t) => t.status === 'claimed')).toEqual([]);
    expect(after.every((t) => t.status === 'open' || (t.status === 'done' && t.id === first.id))).toBe(true);
    // Answers written to a pipe nobody reads any more end the session quietly.
    expect(s.stderr()).not.toMatch(/\n\s+at |error\[/);
  });
});
