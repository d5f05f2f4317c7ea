import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cleanAfterEach } from './cleanup.js';

const BIN = fileURLToPath(new URL('../../bin/mdclaim.cjs', import.meta.url));

/** A client connected to its own `mdclaim mcp` process over real stdio. */
export interface Session {
  client: Client;
  transport: StdioClientTransport;
  /** The server process. */
  pid: number;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Resolves once the server process has exited. */
  exited: Promise<void>;
  /** Call a tool; resolves with its text and structured content. */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string; doc: Record<string, unknown> }>;
}

const live: Session[] = [];

cleanAfterEach(async () => {
  for (const s of live.splice(0)) {
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await s.client.close().catch(() => {});
  }
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Start `mdclaim mcp --file <location> [args…]` and connect the SDK's client to it. */
export async function connect(location: string, args: string[] = [], env: Record<string, string> = {}, cwd?: string): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--file', location, ...args], env: { ...env }, stderr: 'pipe', ...(cwd === undefined ? {} : { cwd }) });
  let err = '';
  transport.stderr!.on('data', (d: Buffer) => (err += d));
  const client = new Client({ name: 'mdclaim-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  const exited = new Promise<void>((resolve) => {
    const poll = () => (alive(pid) ? setTimeout(poll, 50) : resolve());
    poll();
  });
  const session: Session = {
    client,
    transport,
    pid,
    stderr: () => err,
    exited,
    async call(name, a = {}) {
      const r = (await client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };
      return { isError: r.isError === true, text: r.content[0]!.text, doc: r.structuredContent ?? {} };
    },
  };
  live.push(session);
  return session;
}

/** Wait until `check` holds, polling; fail after `ms` with what it last saw. */
export async function until<T>(what: string, get: () => Promise<T>, check: (v: T) => boolean, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
