/**
 * A fake Deepgram API: a real HTTP server on 127.0.0.1 speaking POST /v1/listen (options in the query, the body
 * `{ url }` as JSON or the audio bytes with their content type) → `{ metadata, results: { channels: [{ alternatives:
 * [{ transcript, confidence, words }] }] } }`, authenticated by `Authorization: Token <key>`, with Deepgram's
 * `{ err_code, err_msg, request_id }` error bodies.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

export interface FakeDeepgram {
  url: string;
  failWith: number | null;
  requests: Array<{
    query: URLSearchParams;
    contentType: string;
    json?: Record<string, unknown>;
    bytes?: Buffer;
  }>;
  close(): Promise<void>;
}

export async function startFakeDeepgram(options: { apiKey: string }): Promise<FakeDeepgram> {
  const fake: FakeDeepgram = {
    url: '',
    failWith: null,
    requests: [],
    close: () => closeServer(server),
  };
  const refuse = (res: ServerResponse, status: number, code: string, msg: string) =>
    sendJson(res, status, { err_code: code, err_msg: msg, request_id: randomUUID() });

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://deepgram.test');
    if (req.headers.authorization !== `Token ${options.apiKey}`)
      return refuse(res, 401, 'INVALID_AUTH', 'Invalid credentials.');
    if (req.method !== 'POST' || url.pathname !== '/v1/listen')
      return refuse(res, 404, 'NOT_FOUND', 'Not found');
    const contentType = String(req.headers['content-type'] ?? '');
    const recorded: FakeDeepgram['requests'][number] = { query: url.searchParams, contentType };
    if (contentType.startsWith('application/json'))
      recorded.json = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    else recorded.bytes = raw;
    fake.requests.push(recorded);
    if (fake.failWith) return refuse(res, fake.failWith, 'INTERNAL', `failed with ${fake.failWith}`);
    if (recorded.json && typeof recorded.json.url !== 'string')
      return refuse(res, 400, 'Bad Request', 'Invalid JSON body: url is required');
    if (recorded.bytes && recorded.bytes.length === 0)
      return refuse(
        res,
        400,
        'Bad Request',
        'Bad Request: failed to process audio: corrupt or unsupported data',
      );
    const transcript = recorded.json ? `heard ${recorded.json.url}` : `heard ${recorded.bytes?.length} bytes`;
    return sendJson(res, 200, {
      metadata: {
        transaction_key: 'deprecated',
        request_id: randomUUID(),
        created: new Date().toISOString(),
        duration: 3.2,
        channels: 1,
        models: [randomUUID()],
        model_info: {},
      },
      results: {
        channels: [
          {
            alternatives: [
              {
                transcript,
                confidence: 0.99,
                words: [{ word: 'heard', start: 0.1, end: 0.4, confidence: 0.99, punctuated_word: 'Heard' }],
              },
            ],
          },
        ],
      },
    });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
