// A local TCP server that speaks nothing of its own: the stand-in for a database, cache or store that accepts
// connections and then stalls (or answers only what `onSocket` makes it answer).
import net from 'node:net';

export interface TcpServer {
  port: number;
  /** Every connection it accepted, in order. */
  sockets: net.Socket[];
  /** Closes the server and ends the connections it holds. */
  close(): void;
}

/** Listens on a free port of 127.0.0.1 and hands each connection to `onSocket` (by default, holds it silently). */
export async function startTcpServer(onSocket: (socket: net.Socket) => void = () => {}): Promise<TcpServer> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sockets,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
