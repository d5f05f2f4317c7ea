// The CLI ships as one CommonJS file: `mdclaim next` is a fresh process every
// time, loading thirty ES modules cost more than the claim, and starting
// Node's ES module loader at all costs a few milliseconds more than `require`.
// The library stays unbundled ES modules (dist/index.js) for importers.
import { defineConfig } from 'rolldown';

// `createRequire(import.meta.url)` (how the ES module library loads its
// optional dependencies) becomes the bundle's own module.require: importing
// node:module makes Node load its ES module loader as well, about 5 million
// instructions of a fresh call, for a function CommonJS already has.
const ownRequire = {
  name: 'own-require',
  transform(code) {
    if (!code.includes('createRequire(import.meta.url)')) return null;
    const out = code.replace("import { createRequire } from 'node:module';\n", '').replaceAll('createRequire(import.meta.url)', 'module.require.bind(module)');
    if (/\bcreateRequire\b/.test(out)) throw new Error('own-require: createRequire is used otherwise than as createRequire(import.meta.url)');
    return out;
  },
};

// node:os loads at its first use, not at the bundle's start: a claim on a
// file board with --by asks it nothing, and loading it costs a fresh call
// about 2 million instructions. Bundled, each use reads a property of the
// one binding the hoisted require made (`node_os.hostname`).
const lazyOs = {
  name: 'lazy-os',
  renderChunk(code) {
    const hoisted = 'let node_os = require("node:os");';
    if (!code.includes(hoisted)) return null;
    return code.replace(hoisted, 'let node_os = new Proxy({}, { get: (_, name) => require("node:os")[name] });');
  },
};

export default defineConfig([
  {
    input: 'src/cli.ts',
    platform: 'node',
    plugins: [ownRequire, lazyOs],
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
