/**
 * A fake OpenAI media upstream: a real HTTP server on 127.0.0.1 under /v1 speaking POST /v1/images/generations
 * (`{ created, data: [{ b64_json, revised_prompt }], usage }`), POST /v1/audio/speech (the audio bytes, with their
 * content type), POST /v1/audio/transcriptions (multipart/form-data in, `{ text, usage }` for json, plain text
 * for text/srt/vtt; server-sent events `transcript.text.delta` / `transcript.text.done` for a gpt-4o model asked
 * to `stream`) and the Videos API (Sora, openai-videos.ts), with OpenAI's
 * `{ error: { message, type, param, code } }` bodies. Every request needs the Bearer key, content downloads too.
 *
 *   const fake = await startFakeOpenAiMedia({ apiKey: 'sk-test' });
 *   // OPENAI_BASE_URL = fake.url (ends in /v1)
 *   fake.setScript({ status: 500 });
 *   fake.setScript({ video: { polls: 3, failure: { code: 'moderation_blocked', message: '…' } } });
 *   ... fake.requests[0].form?.get('file') ... fake.videos.last()?.mp4 ...
 */
import { createServer } from 'node:http';
import { bytesFor } from './file-bytes.js';
import { closeServer, listen, sendJson } from './http.js';
import { openAiErrorBody } from './openai-upstream.js';
import { FakeVideos, type VideoScript } from './openai-videos.js';

export interface OpenAiMediaScript {
  /** Every request fails with this status and OpenAI's error body. */
  status?: number;
  /** How the videos created from now on go. */
  video?: VideoScript;
  /** Every answer starts only after this many ms (a slow image model). */
  delayMs?: number;
}

export interface OpenAiMediaRequest {
  path: string;
  json?: Record<string, unknown>;
  form?: FormData;
}

export interface FakeOpenAiMedia {
  url: string;
  setScript(script: OpenAiMediaScript): void;
  requests: OpenAiMediaRequest[];
  /** The bytes the fake produced for the image with this index of the last image request, or the last speech. */
  produced: Buffer[];
  /** The Videos API's state: the videos made, the downloads and deletes received. */
  videos: FakeVideos;
  close(): Promise<void>;
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

export async function startFakeOpenAiMedia(options: { apiKey?: string } = {}): Promise<FakeOpenAiMedia> {
  let script: OpenAiMediaScript = {};
  const fake: FakeOpenAiMedia = {
    url: '',
    setScript(s) {
      script = s;
      fake.videos.script = s.video ?? {};
    },
    requests: [],
    produced: [],
    videos: new FakeVideos(),
    close: () => closeServer(server),
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://openai.test');
    const path = url.pathname;
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return sendJson(res, 401, openAiErrorBody(401));
    const type = String(req.headers['content-type'] ?? '');
    const recorded: OpenAiMediaRequest = { path };
    try {
      if (type.startsWith('multipart/form-data')) {
        recorded.form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      } else if (raw.length > 0) recorded.json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, openAiErrorBody(400, 'We could not parse the JSON body of your request.'));
    }
    fake.requests.push(recorded);
    if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
    if (script.status) return sendJson(res, script.status, openAiErrorBody(script.status));
    const body = recorded.json ?? {};
    if (await fake.videos.handle(req.method ?? 'GET', url, recorded.form, res)) return;

    if (req.method === 'POST' && path === '/v1/images/generations') {
      if (typeof body.prompt !== 'string')
        return sendJson(res, 400, openAiErrorBody(400, "Missing required parameter: 'prompt'."));
      const n = Number(body.n ?? 1);
      fake.produced = Array.from({ length: n }, (_, i) =>
        bytesFor(
          `${body.prompt}#${i}`,
          3000,
          IMAGE_TYPES[String(body.output_format ?? 'png')] ?? 'image/png',
        ),
      );
      return sendJson(res, 200, {
        created: 1_767_225_600,
        data: fake.produced.map((b) => ({ b64_json: b.toString('base64') })),
        usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50 },
      });
    }
    if (req.method === 'POST' && path === '/v1/audio/speech') {
      if (typeof body.input !== 'string' || typeof body.voice !== 'string')
        return sendJson(res, 400, openAiErrorBody(400, "Missing required parameter: 'input'."));
      const format = String(body.response_format ?? 'mp3');
      const type = SPEECH_TYPES[format] ?? 'audio/mpeg';
      const audio = bytesFor(`${body.voice}:${body.input}`, 100 * body.input.length, type);
      fake.produced = [audio];
      res.writeHead(200, { 'content-type': type });
      return res.end(audio);
    }
    if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
      const file = recorded.form?.get('file');
      if (!(file instanceof Blob))
        return sendJson(res, 400, openAiErrorBody(400, "Missing required parameter: 'file'."));
      const name = (file as File).name;
      const text = `heard ${file.size} bytes of ${file.type} in ${name}`;
      const format = String(recorded.form?.get('response_format') ?? 'json');
      const model = String(recorded.form?.get('model') ?? '');
      // The gpt-4o transcribe models stream server-sent events when asked; whisper-1 ignores `stream`.
      if (recorded.form?.get('stream') === 'true' && model !== 'whisper-1') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const word of text.split(' '))
          res.write(`data: ${JSON.stringify({ type: 'transcript.text.delta', delta: `${word} ` })}\n\n`);
        const usage = { type: 'tokens', input_tokens: 14, output_tokens: 9, total_tokens: 23 };
        return res.end(`data: ${JSON.stringify({ type: 'transcript.text.done', text, usage })}\n\n`);
      }
      if (format === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end(text);
      }
      return sendJson(res, 200, { text, usage: { type: 'duration', seconds: 3 } });
    }
    return sendJson(res, 404, openAiErrorBody(404, `Invalid URL (${req.method} ${path})`));
  });
  fake.url = `${await listen(server)}/v1`;
  return fake;
}
