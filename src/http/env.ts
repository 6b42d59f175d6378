/** The Hono environment of kasir: Node bindings (absent under app.request in tests) and per-request values. */
import type { HttpBindings } from '@hono/node-server';
import type { InProcessCall } from './in-process.js';

export interface AppEnv {
  Bindings: Partial<HttpBindings> & {
    /** A request kasir sent itself, in process (an MCP tool call): its body, and its answer as sent. */
    inProcess?: InProcessCall;
  };
  Variables: {
    requestId: string;
  };
}
