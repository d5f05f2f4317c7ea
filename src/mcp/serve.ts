import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskBoard } from '../board/types.js';
import { callTool } from './call.js';
import { answerMalformed } from './malformed.js';
import { Session } from './session.js';
import { instructions, TOOLS } from './tools.js';

export interface ServeOptions {
  /** Who this session claims as. */
  by: string;
  /** The lease of a claim that names none (default: the board's). */
  lease?: string | number;
  version: string;
  /** One line of news for a person (stderr: stdout is the protocol's). */
  log: (line: string) => void;
}

const require = createRequire(import.meta.url);

/** dist/mcp/sdk.cjs, from the CLI's bundle (dist/cli.cjs) or from this module unbundled (dist/mcp/serve.js). */
function sdkBundle(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, 'mcp', 'sdk.cjs'), join(here, 'sdk.cjs')].find((file) => existsSync(file)) ?? join(here, 'sdk.cjs');
}

/** The signals that end a session the way a closed stdin does, and the status each leaves. */
const SIGNALS = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Serve the board over MCP on stdin/stdout until the client goes away (stdin
 * ends, the transport closes, stdout breaks, or SIGHUP/SIGINT/SIGTERM), then
 * release every claim the session holds. Resolves with the exit status.
 */
export async function serveMcp(board: TaskBoard, options: ServeOptions): Promise<number> {
  // Loaded only here, so every other command starts without the SDK; require, not import(): the CLI is a CommonJS bundle run from V8's code cache, where import() has no loader.
  const { Server, StdioServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = require(sdkBundle()) as typeof import('./sdk.js');
  const session = new Session(board, options.by, options.lease);
  const server = new Server({ name: 'mdclaim', version: options.version }, { capabilities: { tools: {} }, instructions: instructions(options.by, board.location) });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => callTool(session, board, req.params.name, req.params.arguments));

  let finish!: (status: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  let ending = false;
  const end = (status: number, why: string): void => {
    if (ending) return;
    ending = true;
    void (async () => {
      try {
        const { released, failed } = await session.close();
        if (released.length > 0) options.log(`mdclaim mcp: ${why}; released ${released.join(', ')}`);
        if (failed.length > 0) options.log(`mdclaim mcp: could not release ${failed.join(', ')}; they lapse by their lease`);
        await server.close().catch(() => {});
      } finally {
        finish(status);
      }
    })();
  };
  // A second signal while the claims are being released ends the process at once: they lapse by their lease.
  const onSignal = Object.fromEntries(Object.entries(SIGNALS).map(([sig, status]) => [sig, () => (ending ? process.exit(status) : end(status, sig))])) as Record<keyof typeof SIGNALS, () => void>;
  for (const [sig, handler] of Object.entries(onSignal)) process.on(sig, handler);
  const onEnd = () => end(0, 'the client disconnected');
  process.stdin.on('end', onEnd);
  process.stdin.on('close', onEnd);
  // A reader gone from stdout (EPIPE) is a client gone, not a crash.
  process.stdout.on('error', onEnd);
  server.onclose = onEnd;

  const transport = new StdioServerTransport();
  await server.connect(transport);
  answerMalformed(transport);
  options.log(`mdclaim mcp: serving ${board.location} as ${options.by}`);
  try {
    return await ended;
  } finally {
    for (const [sig, handler] of Object.entries(onSignal)) process.off(sig, handler);
    // Nothing may keep the process alive once its claims are given back.
    process.stdin.destroy();
  }
}
