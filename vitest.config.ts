import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least three test files at a time (vitest's default is one fewer than the cores: one, on a two-core
    // machine): most files spend their time waiting on child processes, local chains, databases and sockets rather
    // than computing, so three share two cores well and the suite takes about half the time.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
