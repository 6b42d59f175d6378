/**
 * A local server (the contract tests' recorder) that replays recorded exchanges of a real provider API (test/fakes/fixtures/recordings, each
 * with its source and licence, listed in NOTICE) and records every request it receives, so a test can compare
 * what kasir — or an official SDK — sent with what the recording's client sent.
 *
 *   const server = await startRecordingServer(loadRecording('anthropic-thinking-tool-loop'));
 *   // point the provider's base URL at server.url; request i gets the answer of interaction i (the last repeats)
 *   server.requests[0].body ...
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { pathOf, startRecorder } from '../support/recorder.js';

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
  let script = interactions;
  let served = 0;
  const requests: ReceivedRequest[] = [];
  const recorder = await startRecorder((req) => {
    // Bodies as JSON objects (an empty one when the body was not JSON).
    requests.push({
      method: req.method,
      path: req.path,
      headers: req.headers,
      body: (req.json ?? {}) as Record<string, unknown>,
    });
    const interaction = script[Math.min(served++, script.length - 1)];
    const path = pathOf(req);
    if (!interaction || interaction.request.path !== path || interaction.request.method !== req.method)
      return { status: 404, json: { error: { message: `no recording for ${req.method} ${path}` } } };
    const { status, contentType, body: json, text } = interaction.response;
    return {
      status,
      headers: { 'content-type': contentType },
      bytes: Buffer.from(text ?? JSON.stringify(json)),
    };
  });
  return {
    url: recorder.url,
    requests,
    replay(next) {
      script = next;
      served = 0;
    },
    close: () => recorder.close(),
  };
}
