// The part of the MCP SDK a stdio server runs. The build bundles it, with what
// it needs, into dist/mcp/sdk.cjs (rolldown.config.mjs), so an installed mdclaim
// carries no HTTP stack, client or auth code, and the SDK is a dev dependency.
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
