import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from './helpers/mcp.js';
import { boardFile, read } from './helpers/tmp.js';

// What JSON-RPC asks of a server sent a line it cannot take, on `mdclaim mcp`'s real stdio.

const BIN = fileURLToPath(new URL('../bin/mdclaim.cjs', import.meta.url));
const BOARD = '# Work\n\n- [ ] T-1 first\n';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A server on a raw pipe: send lines as they are, read each answer as it comes. */
function raw(file: string) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--file', file, '--by', 'raw'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const answers: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else answers.push(line);
  });
  return {
    send: (line: string) => child.stdin!.write(`${line}\n`),
    answer: (): Promise<string> => (answers.length > 0 ? Promise.resolve(answers.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

describe('mdclaim mcp and lines it cannot take', () => {
  it('answers a line that is not JSON with -32700, one that is no JSON-RPC message with -32600, and serves on', async () => {
    const file = boardFile(BOARD);
    const s = raw(file);
    s.send('{not json');
    expect(JSON.parse(await s.answer())).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: a line that is not JSON' } });
    s.send('[1,2]');
    expect(JSON.parse(await s.answer())).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a line that is not a JSON-RPC 2.0 message' } });
    s.send(JSON.stringify(INIT));
    expect(JSON.parse(await s.answer())).toMatchObject({ id: 1, result: { serverInfo: { name: 'mdclaim' } } });
    expect(read(file)).toBe(BOARD);
  });

  it('answers a tools/call without params, or without a tool name, with one line in the CLI\'s words', async () => {
    const file = boardFile(BOARD);
    const s = raw(file);
    s.send(JSON.stringify(INIT));
    await s.answer();
    s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const cases: [unknown, RegExp][] = [
      [undefined, /^error\[USAGE\]: tools\/call needs params \{"name": TOOL, "arguments": \{…\}\} \(tools: next, claim, /],
      [{}, /^error\[USAGE\]: tools\/call needs a tool's name in params\.name \(tools: next, /],
      [{ name: 'claim', arguments: 5 }, /^error\[USAGE\]: claim: arguments must be an object$/],
    ];
    let id = 10;
    for (const [params, want] of cases) {
      s.send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', ...(params === undefined ? {} : { params }) }));
      const doc = JSON.parse(await s.answer()) as { id: number; error: { code: number; message: string } };
      expect(doc.id).toBe(id);
      expect(doc.error.code).toBe(-32602);
      expect(doc.error.message).toMatch(want);
      expect(doc.error.message).not.toContain('\n');
    }
    expect(read(file)).toBe(BOARD);
  });

  it('still serves the SDK client as before, and says what an empty id is', async () => {
    const s = await connect(boardFile(BOARD), ['--by', 'agent']);
    expect((await s.call('claim', { id: 'T-1' })).isError).toBe(false);
    const empty = await s.call('done', { id: '' });
    expect(empty.isError).toBe(true);
    expect(empty.text).toMatch(/^error\[USAGE\]: /);
  });
});
