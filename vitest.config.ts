import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A PostgreSQL database of the run's own, and the check that no process outlives the run.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    // The usual report, and a line at its end counting the PostgreSQL tests skipped for want of a server.
    reporters: ['default', './test/pg-skips.ts'],
    // Races and crashes use real processes and real signals.
    pool: 'forks',
    // One worker more than the cores: much of a test's time is spent waiting on processes, signals and leases, not
    // on a core, and the extra worker keeps the cores busy meanwhile (on 2 cores: 335 s with two workers, 286 s with
    // three, the same tests).
    maxWorkers: availableParallelism() + 1,
    // Generous for a machine at a load average of 20, where a process gets a tenth of a core:
    // a test that takes 6 s alone takes a minute there. Tests wait for events, never for time.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
