// The CLI ships as one file: `mdclaim next` is a fresh process every time, and
// loading thirty ES modules costs more than the claim. The library stays
// unbundled (dist/index.js) for importers.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: 'src/cli.ts',
  platform: 'node',
  // Native and optional: loaded at run time, only when a lock is taken.
  external: ['fs-ext'],
  output: { file: 'dist/cli.js', format: 'esm', codeSplitting: false },
});
