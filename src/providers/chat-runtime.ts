/** What a chat call runs on: the configured chat providers, the router that picks among them, and the wait for a whole answer. */
import type { ChatRouter } from './chat-router.js';
import type { ChatProviders } from './registry.js';

export interface ChatRuntime {
  providers: ChatProviders;
  router: ChatRouter;
  /** How long kasir waits for a whole non-streamed answer (CHAT_CALL_TIMEOUT_MS; default 10 minutes). */
  callTimeoutMs?: number;
}
