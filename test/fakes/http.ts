/** The plumbing every fake HTTP upstream shares: answer JSON, listen on a free local port, shut down at once. */
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers `status` with `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Listens on 127.0.0.1 at a free port and resolves to the server's base URL, `http://127.0.0.1:<port>`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server, dropping kept-alive connections instead of waiting for them to idle out. */
export async function closeServer(server: Pick<Server, 'close' | 'closeAllConnections'>): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
