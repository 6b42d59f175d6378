import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A guard against hangs, not a speed check: CI may run on a machine several times slower than a desk's (and
    // three files at a time share its cores), so there a test gets four times as long before it counts as hung.
    testTimeout: process.env.CI ? 120_000 : 30_000,
    hookTimeout: process.env.CI ? 240_000 : 60_000,
    pool: 'forks',
    // At least three test files at a time (vitest's default is one fewer than the cores: one, on a two-core
    // machine): most files spend their time waiting on child processes, local chains, databases and sockets rather
    // than computing, so three share two cores well and the suite takes about half the time.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
