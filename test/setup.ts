import { afterAll, inject } from 'vitest';
import { FIXTURE_MARK } from './global-setup.js';
import { killStarted } from './helpers/procs.js';

// Every process a test starts inherits the run's mark, so the run's teardown
// can find any left behind (see global-setup.ts).
process.env[FIXTURE_MARK] = inject('fixtureMark');

// A test that fails before it stops its fixtures must not leave them running.
afterAll(() => {
  const killed = killStarted();
  if (killed.length > 0) console.warn(`killed ${killed.length} fixture(s) still running after the file's tests: ${killed.join(', ')}`);
});
