/**
 * A fake Gemini API for media models: a real HTTP server on 127.0.0.1, authenticated by `x-goog-api-key`, speaking
 * POST /v1beta/models/{imagen}:predict (→ `{ predictions: [{ bytesBase64Encoded, mimeType }] }`, or
 * `raiFilteredReason` when filtered), POST /v1beta/models/{gemini}:generateContent (→ candidates with an
 * `inlineData` image part) and POST /v1beta/models/{veo}:predictLongRunning (→ `{ name }`), whose operation
 * GET /v1beta/models/{veo}/operations/{id} is `done: false` for a few reads, then carries
 * `response.generateVideoResponse.generatedSamples[0].video.uri` (or `error`). Videos are downloaded from
 * GET /v1beta/files/{id}:download?alt=media, with the key. Errors use Google's `{ error: { code, message, status } }`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { bytesFor } from './file-bytes.js';
import { closeServer, listen, sendJson } from './http.js';

export interface GoogleMediaScript {
  /** Operation reads answered `done: false`. */
  polls?: number;
  /** Imagen filters every image with this reason. */
  filtered?: string;
  /** The operation ends with this error. */
  operationError?: { code: number; message: string };
  /** Every POST fails with this HTTP status. */
  failWith?: number;
  /** Video downloads answer 302 to this storage host, which then serves the file (as a signed URL would). */
  redirectTo?: { url: string; put(path: string, bytes: Buffer, contentType: string): void };
}

export interface FakeGoogleMedia {
  url: string;
  setScript(script: GoogleMediaScript): void;
  requests: Array<{ path: string; body: Record<string, unknown> }>;
  /** Every image or video the fake produced, in order. */
  produced: Buffer[];
  /** Downloads of video files, with the key they carried. */
  downloads: Array<{ path: string; key: string | undefined }>;
  close(): Promise<void>;
}

export async function startFakeGoogleMedia(options: { apiKey: string }): Promise<FakeGoogleMedia> {
  let script: GoogleMediaScript = {};
  const operations = new Map<string, { reads: number; script: GoogleMediaScript; file: string }>();
  const files = new Map<string, Buffer>();
  const fake: FakeGoogleMedia = {
    url: '',
    setScript(s) {
      script = s;
    },
    requests: [],
    produced: [],
    downloads: [],
    close: () => closeServer(server),
  };
  const error = (res: ServerResponse, code: number, status: string, message: string) =>
    sendJson(res, code, { error: { code, message, status } });
  const produce = (seed: string, blocks: number, type: string) => {
    const bytes = bytesFor(seed, blocks * 32, type);
    fake.produced.push(bytes);
    return bytes;
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://google.test');
    const key = req.headers['x-goog-api-key'] as string | undefined;
    const download = /^\/v1beta\/files\/([\w-]+):download$/.exec(url.pathname);
    if (req.method === 'GET' && download) {
      fake.downloads.push({ path: url.pathname, key });
      if (key !== options.apiKey)
        return error(res, 403, 'PERMISSION_DENIED', 'The caller does not have permission');
      const file = files.get(download[1] ?? '');
      if (!file || url.searchParams.get('alt') !== 'media')
        return error(res, 404, 'NOT_FOUND', 'File not found');
      if (script.redirectTo) {
        const path = `/bucket/${download[1]}.mp4`;
        script.redirectTo.put(path, file, 'video/mp4');
        return res.writeHead(302, { location: `${script.redirectTo.url}${path}?sig=fake` }).end();
      }
      return res.writeHead(200, { 'content-type': 'video/mp4' }).end(file);
    }
    if (key !== options.apiKey)
      return error(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    const op = /^\/v1beta\/(models\/[\w.-]+\/operations\/[\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && op) {
      const name = op[1] ?? '';
      const state = operations.get(name);
      if (!state) return error(res, 404, 'NOT_FOUND', 'Operation not found');
      state.reads += 1;
      if (state.reads <= (state.script.polls ?? 2)) return sendJson(res, 200, { name, done: false });
      if (state.script.operationError)
        return sendJson(res, 200, { name, done: true, error: state.script.operationError });
      return sendJson(res, 200, {
        name,
        done: true,
        response: {
          '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
          generateVideoResponse: {
            generatedSamples: [
              { video: { uri: `${fake.url}/v1beta/files/${state.file}:download?alt=media` } },
            ],
          },
        },
      });
    }
    const call = /^\/v1beta\/models\/([\w.-]+):(predict|predictLongRunning|generateContent)$/.exec(
      url.pathname,
    );
    if (req.method !== 'POST' || !call) return error(res, 404, 'NOT_FOUND', 'Not found');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    fake.requests.push({ path: url.pathname, body });
    if (script.failWith) return error(res, script.failWith, 'INTERNAL', `failed with ${script.failWith}`);
    const [, model = '', method] = call;
    const instance = (body.instances as Array<Record<string, unknown>> | undefined)?.[0];
    if (method === 'predictLongRunning') {
      // The Gemini API's Veo: `seed` is Vertex-only, `referenceType` is the upper-case enum ASSET | STYLE.
      if ((body.parameters as { seed?: unknown } | undefined)?.seed !== undefined)
        return error(res, 400, 'INVALID_ARGUMENT', "`seed` isn't supported by this model.");
      const refs = (instance?.referenceImages ?? []) as Array<{ referenceType?: unknown }>;
      if (refs.some((r) => r.referenceType !== 'ASSET' && r.referenceType !== 'STYLE'))
        return error(
          res,
          400,
          'INVALID_ARGUMENT',
          "Invalid value at 'instances[0].reference_images[0].reference_type'",
        );
    }
    if (method === 'predict') {
      if (typeof instance?.prompt !== 'string')
        return error(res, 400, 'INVALID_ARGUMENT', 'prompt is required');
      const count = Number((body.parameters as { sampleCount?: unknown } | undefined)?.sampleCount ?? 1);
      if (script.filtered)
        return sendJson(res, 200, { predictions: [{ raiFilteredReason: script.filtered }] });
      return sendJson(res, 200, {
        predictions: Array.from({ length: count }, (_, i) => ({
          mimeType: 'image/png',
          bytesBase64Encoded: produce(`${model}:${instance.prompt}:${i}`, 8, 'image/png').toString('base64'),
        })),
      });
    }
    if (method === 'predictLongRunning') {
      if (typeof instance?.prompt !== 'string')
        return error(res, 400, 'INVALID_ARGUMENT', 'prompt is required');
      const name = `models/${model}/operations/${randomUUID().replaceAll('-', '')}`;
      const file = randomUUID().replaceAll('-', '');
      files.set(file, produce(`${model}:${instance.prompt}`, 200, 'video/mp4'));
      operations.set(name, { reads: 0, script, file });
      return sendJson(res, 200, { name });
    }
    const parts =
      (body.contents as Array<{ parts?: Array<Record<string, unknown>> }> | undefined)?.[0]?.parts ?? [];
    const text = parts.find((p) => typeof p.text === 'string')?.text;
    if (typeof text !== 'string') return error(res, 400, 'INVALID_ARGUMENT', 'contents.parts must hold text');
    return sendJson(res, 200, {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: `Here is ${text}` },
              {
                inlineData: {
                  mimeType: 'image/png',
                  data: produce(`${model}:${text}:${parts.length}`, 8, 'image/png').toString('base64'),
                },
              },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1290, totalTokenCount: 1300 },
    });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
