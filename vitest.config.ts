import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One test file per core. Vitest's default (cores − 1) is one file at a time on the 2-core machines CI and the
    // sessions run on; much of a file's time is waiting on a child process, a server or Elasticsearch, so two at a
    // time cut the suite's wall time by a third for the same CPU (figures in README › Two commands).
    maxWorkers: os.availableParallelism(),
  },
});
