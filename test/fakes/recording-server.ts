/**
 * A local server that replays recorded exchanges of a real provider API (test/fakes/fixtures/recordings, each
 * with its source and licence, listed in NOTICE) and records every request it receives, so a test can compare
 * what kasir — or an official SDK — sent with what the recording's client sent.
 *
 *   const server = await startRecordingServer(loadRecording('anthropic-thinking-tool-loop'));
 *   // point the provider's base URL at server.url; request i gets the answer of interaction i (the last repeats)
 *   server.requests[0].body ...
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { closeServer, listen } from './http.js';

export interface RecordedInteraction {
  request: { method: string; path: string; body: Record<string, unknown> | null };
  response: { status: number; contentType: string; body?: unknown; text?: string };
}

export interface Recording {
  /** Where the exchange was recorded and published (repository, commit, path). */
  source: string;
  licence: string;
  /** The real endpoint the exchange was recorded against. */
  recordedAgainst: string;
  interactions: RecordedInteraction[];
}

export interface ReceivedRequest {
  method: string;
  /** Path with its query string. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface RecordingServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  url: string;
  requests: ReceivedRequest[];
  /** Replays these interactions from now on, from the first. */
  replay(interactions: RecordedInteraction[]): void;
  close(): Promise<void>;
}

export function loadRecording(name: string): Recording {
  const file = new URL(`./fixtures/recordings/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as Recording;
}

/** Request i is answered with interaction i's recorded response (the last one repeats); a request to another path gets a 404. */
export async function startRecordingServer(
  interactions: RecordedInteraction[] = [],
): Promise<RecordingServer> {
  const requests: ReceivedRequest[] = [];
  let script = interactions;
  let served = 0;
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: recorded as an empty object
      }
      requests.push({ method: raw.method ?? 'GET', path: raw.url ?? '/', headers: raw.headers, body });
      const interaction = script[Math.min(served++, script.length - 1)];
      const path = (raw.url ?? '/').split('?')[0];
      if (!interaction || interaction.request.path !== path || interaction.request.method !== raw.method) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no recording for ${raw.method} ${path}` } }));
        return;
      }
      const { status, contentType, body: json, text } = interaction.response;
      res.writeHead(status, { 'content-type': contentType });
      res.end(text ?? JSON.stringify(json));
    });
  });
  const url = await listen(server);
  return {
    url,
    requests,
    replay(next) {
      script = next;
      served = 0;
    },
    close: () => closeServer(server),
  };
}
