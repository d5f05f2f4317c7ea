import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A PostgreSQL database of the run's own, and the check that no process outlives the run.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    // Races and crashes use real processes and real signals.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
