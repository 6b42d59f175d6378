// A local HTTPS server for tests whose inputs must be https URLs: a fresh self-signed certificate for 127.0.0.1
// (made with the openssl command), which kasir is told to trust through FETCH_CA_FILE.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer } from './http.js';

export interface HttpsSite {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>`, as FETCH_ALLOWED_HOSTS names it. */
  hostPort: string;
  /** The PEM file of the server's certificate (for FETCH_CA_FILE). */
  caFile: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startHttpsSite(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<HttpsSite> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-https-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const requests: string[] = [];
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    caFile: cert,
    requests,
    async close() {
      await closeServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
