/** Serves an app over HTTP and stops it gracefully: stop accepting, let in-flight requests finish, then close. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface RunningServer {
  url: string;
  /** Stops accepting, waits for in-flight requests up to `timeoutMs`, then closes what is left. */
  stop(timeoutMs: number): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type
export function startServer(app: Hono<any>, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const h = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${h}:${info.port}`,
        stop: (timeoutMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              if ('closeAllConnections' in server) server.closeAllConnections();
            }, timeoutMs);
            // Keep-alive sockets go idle as their last request finishes; close them as they do, not at their timeout.
            const idle = setInterval(() => {
              if ('closeIdleConnections' in server) server.closeIdleConnections();
            }, 50);
            server.close(() => {
              clearTimeout(timer);
              clearInterval(idle);
              done();
            });
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }),
      });
    });
    server.once('error', reject);
  });
}
