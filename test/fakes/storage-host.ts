/**
 * A fake storage host (a signed-URL bucket): a real HTTP server on 127.0.0.1 serving files put on it, recording the
 * headers of every request, so a test sees that a redirected download reached it without the provider's key.
 *
 *   const storage = await startStorageHost();
 *   storage.put('/veo/1.mp4', bytes, 'video/mp4'); ... storage.requests[0].headers ...
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { closeServer, listen } from './http.js';

export interface StorageHost {
  url: string;
  put(path: string, bytes: Buffer, contentType: string): void;
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startStorageHost(): Promise<StorageHost> {
  const files = new Map<string, { bytes: Buffer; contentType: string }>();
  const host: StorageHost = {
    url: '',
    put: (path, bytes, contentType) => void files.set(path, { bytes, contentType }),
    requests: [],
    close: () => closeServer(server),
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://storage.test').pathname;
    host.requests.push({ path, headers: req.headers });
    const file = files.get(path);
    if (!file) return void res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error/>');
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
    res.end(file.bytes);
  });
  host.url = await listen(server);
  return host;
}
