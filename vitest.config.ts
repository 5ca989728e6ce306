import { defineConfig } from 'vitest/config';

// Test files run in parallel forks (one per core); each file gets its own Postgres database
// cloned from a migrated template and its own BullMQ prefix (see test/helpers).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
