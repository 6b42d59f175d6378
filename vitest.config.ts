import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A guard against hangs, not a speed check: CI may run on a machine several times slower than a desk's (and
    // three files at a time share its cores), so there a test gets four times as long before it counts as hung.
    testTimeout: process.env.CI ? 120_000 : 30_000,
    hookTimeout: process.env.CI ? 240_000 : 60_000,
    pool: 'forks',
    // At least three test files at a time (vitest's default is one fewer than the cores: one, on a two-core
    // machine): most files spend their time waiting on child processes, local chains, databases and sockets rather
    // than computing, so three share two cores well and the suite takes about half the time.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          // The unit files of a worker share its process and the modules it loaded: most of a unit file's time was
          // loading kasir's modules and dependencies (these files ran in 138 s with a process each, 78 s sharing).
          // Each file starts and stops what it uses; see test/support/pristine-globals.ts for the one global a file
          // changed for the next.
          isolate: false,
          setupFiles: ['test/support/pristine-globals.ts'],
        },
      },
      {
        extends: true,
        // End-to-end files, drills and properties each run in a process of their own: they start several kasir
        // instances, chains and child processes, and some time what they wait for; sharing processes made them
        // flaky in CI (a later file ran beside what an earlier one left winding down).
        test: { name: 'e2e', include: ['test/**/*.test.ts'] },
      },
    ],
  },
});
