/**
 * undici's pools, agent and request API, loaded from their own files rather than from undici's index. The index
 * also loads what kasir never uses (fetch, WebSocket, EventSource, the cache stores, the mocks, the proxy agents):
 * in the server's bundle that was about half of undici's code (486 of 941 KB), compiled and run at every start-up.
 * undici has no `exports` map, so its files are importable as they are; its index adds the request API to every
 * dispatcher, and so does this module. Types come from undici's own declarations (undici-files.d.ts), so the type
 * check cannot tell if an undici release moves these files: undici.test.ts does (and kasir would not start), and it
 * checks that the classes are the ones undici's index exports.
 */
import type * as Undici from 'undici';
import api from 'undici/lib/api/index.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';

Object.assign(DispatcherClass.prototype, api);

export const Pool: typeof Undici.Pool = PoolClass;
export const Agent: typeof Undici.Agent = AgentClass;
export type Pool = Undici.Pool;
export type Agent = Undici.Agent;
