import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two test files at once even on 2 cores (the default would be one): most of a test's time is
    // spent waiting on a child process, a server or the browser. The whole run: about 16.5 -> 12 min.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/globalSetup.ts'],
  },
});
