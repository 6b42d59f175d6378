/** The Hono environment of kasir: Node bindings (absent under app.request in tests) and per-request values. */
import type { HttpBindings } from '@hono/node-server';

export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    /** Set by the checkout when an API key identified the caller, so the rate limit can use its own limit. */
    clientKey?: string;
  };
}
