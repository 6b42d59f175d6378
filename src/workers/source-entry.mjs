// The worker's entry point when the pool runs from the TypeScript sources (under Vitest): registers the hooks that
// let a worker thread import .ts files, then serves tasks through the same dispatcher the built service uses.
import { register } from 'node:module';

register('./source-hooks.mjs', import.meta.url);
const { default: runTask } = await import('./entry.ts');

export default runTask;
