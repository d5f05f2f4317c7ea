import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorReport, usage } from '../errors.js';
import { TOOLS } from './tools.js';

type Message = Parameters<NonNullable<Transport['onmessage']>>[0];

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/**
 * Answer what the SDK's stdio transport would leave unanswered or answer
 * with a schema dump: a line that is not JSON (-32700, as JSON-RPC asks), a
 * JSON line that is no JSON-RPC message (-32600), and a `tools/call` whose
 * params name no tool (-32602, one line in the CLI's words). Installed on a
 * connected transport, in front of the SDK's own handlers.
 */
export function answerMalformed(transport: Transport): void {
  const reply = (id: string | number | null, code: number, message: string) =>
    void transport.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as Message).catch(() => {});
  const onerror = transport.onerror;
  transport.onerror = (err: Error) => {
    if (err instanceof SyntaxError) reply(null, PARSE_ERROR, 'parse error: a line that is not JSON');
    else if (err.name === 'ZodError') reply(null, INVALID_REQUEST, 'invalid request: a line that is not a JSON-RPC 2.0 message');
    else onerror?.(err);
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const bad = 'method' in message && 'id' in message && message.method === 'tools/call' ? badCall(message.params) : null;
    if (bad !== null) reply((message as { id: string | number }).id, INVALID_PARAMS, errorReport(usage(bad)).line);
    else onmessage?.(message, extra);
  };
}

/** What is wrong with a tools/call's params, as the CLI would say it; null when the SDK may take it. */
function badCall(params: unknown): string | null {
  const tools = `tools: ${TOOLS.map((t) => t.name).join(', ')}`;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return `tools/call needs params {"name": TOOL, "arguments": {…}} (${tools})`;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return `tools/call needs a tool's name in params.name (${tools})`;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return `${name}: arguments must be an object`;
  return null;
}
