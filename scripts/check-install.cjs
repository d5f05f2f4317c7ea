// Before a build: the tools it runs come from `npm ci`. Without them, say so in one line
// rather than let the shell report `tsc: not found`.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const missing = ['tsc', 'rolldown'].filter((tool) => !existsSync(join(__dirname, '..', 'node_modules', '.bin', tool)));
if (missing.length > 0) {
  process.stderr.write(`error[SETUP]: ${missing.join(' and ')} not installed in this checkout: run npm ci first, then run this again\n`);
  process.exit(1);
}
