import { afterAll } from 'vitest';
import { killStarted } from './helpers/procs.js';

// A test that fails before it stops its fixtures must not leave them running
// (and the run's teardown fails the run for any it finds: see global-setup.ts).
afterAll(() => {
  const killed = killStarted();
  if (killed.length > 0) console.warn(`killed ${killed.length} fixture(s) still running after the file's tests: ${killed.join(', ')}`);
});
