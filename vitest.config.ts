import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files run in parallel forks; each file gets its own Postgres database
// cloned from a migrated template and its own BullMQ prefix (see test/helpers).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // One fork fewer than the cores (vitest's default), but at least three: most files spend their
    // time waiting on Postgres, Redis, child processes and timers, so on 2 cores a third fork
    // keeps them busy (same CPU, about a quarter less wall time on a sample of files).
    // `npx vitest run --maxWorkers=<n>` chooses otherwise.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // Generous: CI shares 2 cores between three test files and their real Postgres, Redis and
    // child processes; a test that needs longer says so itself.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
