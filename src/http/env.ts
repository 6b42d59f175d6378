/** The Hono environment of kasir: Node bindings (absent under app.request in tests) and per-request values. */
import type { HttpBindings } from '@hono/node-server';

export interface AppEnv {
  Bindings: Partial<HttpBindings> & {
    /**
     * The body of a request kasir dispatches to itself in process (an MCP tool call): handed over as bytes rather
     * than as the Fetch request's stream, which costs more to make and read than the call's own work.
     */
    body?: Buffer;
  };
  Variables: {
    requestId: string;
  };
}
