// The CLI ships as one CommonJS file: `mdclaim next` is a fresh process every
// time, loading thirty ES modules cost more than the claim, and starting
// Node's ES module loader at all costs a few milliseconds more than `require`.
// The library stays unbundled ES modules (dist/index.js) for importers.
import { defineConfig } from 'rolldown';

export default defineConfig([
  {
    input: 'src/cli.ts',
    platform: 'node',
    // Native and optional (loaded only when a lock is taken), only for a PostgreSQL board, or only for mdclaim mcp (its own bundle, below): loaded at run time, only when used.
    external: ['fs-ext', 'koffi', 'pg', /^@modelcontextprotocol\/sdk\//],
    // ASCII only (no comments but licences, escapes in strings): V8 then holds the source one byte a character, not two, and a fresh process reads, scans and keeps less of it.
    output: { file: 'dist/cli.cjs', format: 'cjs', codeSplitting: false, charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } },
  },
  {
    // The MCP SDK's stdio server and what it needs, in one file `mdclaim mcp` loads: the SDK is a dev dependency, and a user installs none of its HTTP stack.
    input: 'src/mcp/sdk.ts',
    platform: 'node',
    output: { file: 'dist/mcp/sdk.cjs', format: 'cjs', codeSplitting: false },
  },
]);
