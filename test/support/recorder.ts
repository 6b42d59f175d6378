// A local recording server for contract tests: records every request (method, path with query, headers, body) and
// answers from a route table, so a provider's official SDK and kasir's adapter can be driven against the same
// server and their requests for one operation compared.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { closeServer, listen } from '../fakes/http.js';

export interface Recorded {
  method: string;
  /** The path with its query string, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** The body parsed as multipart/form-data, when it is. */
  form?: FormData;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  bytes?: Buffer;
}

export interface Recorder {
  url: string;
  requests: Recorded[];
  /** Forgets what was recorded. */
  clear(): void;
  close(): Promise<void>;
}

/** Starts a recorder answering each request with `answer(request)` (a 404 when it returns undefined). */
export async function startRecorder(answer: (req: Recorded) => Answer | undefined): Promise<Recorder> {
  const recorder: Recorder = {
    url: '',
    requests: [],
    clear: () => void recorder.requests.splice(0),
    close: () => closeServer(server),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const type = String(req.headers['content-type'] ?? '');
    const recorded: Recorded = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
    };
    if (type.includes('json') && body.length > 0) {
      try {
        recorded.json = JSON.parse(body.toString('utf8'));
      } catch {
        // left unparsed
      }
    } else if (type.startsWith('multipart/form-data')) {
      recorded.form = await new Response(body, { headers: { 'content-type': type } }).formData();
    }
    recorder.requests.push(recorded);
    const out = answer(recorded);
    if (!out)
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const payload = out.bytes ?? Buffer.from(JSON.stringify(out.json ?? {}));
    res.writeHead(out.status ?? 200, {
      'content-type': out.bytes ? 'application/octet-stream' : 'application/json',
      ...out.headers,
    });
    res.end(payload);
  });
  recorder.url = await listen(server);
  return recorder;
}

/** The path without its query string. */
export const pathOf = (r: Recorded | undefined): string => (r?.path ?? '').split('?')[0] ?? '';
