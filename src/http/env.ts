/** The Hono environment of kasir: Node bindings (absent under app.request in tests) and per-request values. */
import type { HttpBindings } from '@hono/node-server';

export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
  };
}
