import { defineConfig } from 'vitest/config';

// Test files run in parallel forks (one per core); each file gets its own Postgres database
// cloned from a migrated template and its own BullMQ prefix (see test/helpers).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Generous: CI shares 2 cores between two test files and their real Postgres, Redis and
    // child processes; a test that needs longer says so itself.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
