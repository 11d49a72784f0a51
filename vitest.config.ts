import { defineConfig } from 'vitest/config';
import LongFirst from './test/helpers/longFirst';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two test files at once even on 2 cores (the default would be one): most of a test's time is
    // spent waiting on a child process, a server or the browser (the whole run: about 17 -> 12
    // min). The tests that watch the event loop judge it as test/helpers/eventLoop.ts says, so that
    // a file loading both cores beside them is not taken for a held loop.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/globalSetup.ts'],
    // The long files first, so that the last minutes do not run on one worker (test/helpers/longFirst.ts).
    sequence: { sequencer: LongFirst },
  },
});
