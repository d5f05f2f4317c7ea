import { randomHex } from '../../builtins.js';
import { parseLease } from '../../board/duration.js';
import { heartbeatEvery } from '../../runner/heartbeat.js';
import { checkBy } from '../../board/checks.js';
import { one } from '../args.js';
import { version } from '../version.js';
import type { Command } from './types.js';

/** A session's claims are renewed while it lives, so a short lease costs nothing and frees a crashed session's work soon. */
export const MCP_LEASE = '5m';

/** `mdclaim mcp`: the arguments, then the MCP server until the client goes away. */
export const mcp: Command = async (board, p, io) => {
  const by = checkBy(one(p, 'by') ?? process.env['MDCLAIM_BY'] ?? `mcp-${randomHex(4)}`);
  const lease = one(p, 'lease') ?? MCP_LEASE;
  heartbeatEvery(parseLease(lease, '--lease'));
  const { serveMcp } = await import('../../mcp/serve.js');
  return serveMcp(board, { by, lease, version: await version(), log: io.err });
};
