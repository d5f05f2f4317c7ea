// Run a script (or `-e` code) in this process and print its peak RSS (KiB) at exit: the fallback when /usr/bin/time is absent.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

process.on('exit', () => process.stderr.write(`maxrss=${process.resourceUsage().maxRSS}\n`));
const [first, ...rest] = process.argv.slice(2);
if (first === '-e') {
  // `node -e 0` has nothing to run: the wrapper's own footprint is the bare figure.
} else if (first !== undefined) {
  process.argv = [process.argv[0]!, resolve(first), ...rest];
  await import(pathToFileURL(resolve(first)).href);
}
