/** Process entry: config → stores → server → graceful shutdown. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './http/logger.js';
import { wire } from './wiring.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`kasir: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const wired = await wire(config, log);
  const app = createApp(wired.deps);
  const server = serve(
    { fetch: app.fetch, hostname: config.host, port: config.port },
    (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      console.error(`kasir listening on http://${host}:${info.port} (public ${config.publicBaseUrl})`);
    },
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Stop accepting; in-flight requests finish until the timeout, then remaining sockets are closed.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    const timer = setTimeout(() => {
      if ('closeAllConnections' in server) server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    await closed;
    clearTimeout(timer);
    await wired.close();
    log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('kasir failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
