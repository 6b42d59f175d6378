/**
 * A fake ElevenLabs API: a real HTTP server on 127.0.0.1 speaking POST /v1/text-to-speech/{voice_id}
 * (`?output_format=`, JSON `{ text, model_id, … }` → audio bytes), POST /v1/music (JSON → audio bytes) and
 * POST /v1/speech-to-text (multipart with `model_id` and `file` → `{ language_code, language_probability, text,
 * words }`), authenticated by `xi-api-key`, with ElevenLabs' `{ detail: { status, message } }` error bodies.
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

export interface FakeElevenLabs {
  url: string;
  /** Every request fails with this status. */
  failWith: number | null;
  requests: Array<{ path: string; json?: Record<string, unknown>; form?: FormData }>;
  /** The audio bytes of the last speech or music answer. */
  lastAudio: Buffer;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  pcm: 'audio/pcm',
  opus: 'audio/opus',
  ulaw: 'audio/basic',
};

export async function startFakeElevenLabs(options: { apiKey: string }): Promise<FakeElevenLabs> {
  const fake: FakeElevenLabs = {
    url: '',
    failWith: null,
    requests: [],
    lastAudio: Buffer.alloc(0),
    close: () => closeServer(server),
  };
  const audio = (res: ServerResponse, seed: string, format: string) => {
    fake.lastAudio = createHash('sha512').update(seed).digest();
    fake.lastAudio = Buffer.concat(Array.from({ length: 40 }, () => fake.lastAudio));
    res
      .writeHead(200, { 'content-type': TYPES[format.split('_')[0] ?? 'mp3'] ?? 'audio/mpeg' })
      .end(fake.lastAudio);
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://elevenlabs.test');
    if (req.headers['xi-api-key'] !== options.apiKey)
      return sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    const type = String(req.headers['content-type'] ?? '');
    const recorded: FakeElevenLabs['requests'][number] = { path: `${url.pathname}${url.search}` };
    if (type.startsWith('multipart/form-data'))
      recorded.form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    else recorded.json = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    fake.requests.push(recorded);
    if (fake.failWith)
      return sendJson(res, fake.failWith, {
        detail: { status: 'error', message: `failed with ${fake.failWith}` },
      });
    const format = url.searchParams.get('output_format') ?? 'mp3_44100_128';
    const body = recorded.json ?? {};
    if (req.method === 'POST' && url.pathname.startsWith('/v1/text-to-speech/')) {
      if (typeof body.text !== 'string' || typeof body.model_id !== 'string')
        return sendJson(res, 422, {
          detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'missing' }],
        });
      return audio(res, `${url.pathname}:${body.model_id}:${body.text}`, format);
    }
    if (req.method === 'POST' && url.pathname === '/v1/music')
      return audio(res, `music:${body.prompt}`, format);
    if (req.method === 'POST' && url.pathname === '/v1/speech-to-text') {
      const file = recorded.form?.get('file');
      if (recorded.form?.get('model_id') !== 'scribe_v1' || !(file instanceof Blob))
        return sendJson(res, 422, {
          detail: { status: 'invalid_parameters', message: 'file or cloud_storage_url required' },
        });
      return sendJson(res, 200, {
        language_code: 'ind',
        language_probability: 0.98,
        text: `terdengar ${file.size} byte`,
        words: [{ text: 'terdengar', start: 0, end: 0.5, type: 'word', speaker_id: 'speaker_0' }],
      });
    }
    return sendJson(res, 404, { detail: 'Not Found' });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
