import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files run in parallel forks; each file gets its own Postgres database
// cloned from a migrated template and its own BullMQ prefix (see test/helpers).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // One fork fewer than the cores (vitest's default), but at least two: on 2 cores the suite
    // would otherwise run one file at a time, while most files spend their time waiting on
    // Postgres, Redis, child processes and timers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Generous: CI shares 2 cores between two test files and their real Postgres, Redis and
    // child processes; a test that needs longer says so itself.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
