/**
 * A fake MiniMax API: a real HTTP server on 127.0.0.1 speaking POST /v1/t2a_v2 (`{ model, text, stream,
 * voice_setting, audio_setting, output_format }`) and POST /v1/music_generation (`{ model, prompt, lyrics,
 * audio_setting, output_format }`), each answering `{ data: { audio: <hex>, status: 2 }, extra_info, trace_id,
 * base_resp: { status_code: 0, status_msg: 'success' } }`. Like MiniMax, it reports failures with HTTP 200 and a
 * non-zero `base_resp.status_code` (1004 for a bad key, 2013 for invalid parameters, 1026 for sensitive content).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

export interface FakeMiniMax {
  url: string;
  /** The next answers carry this `base_resp` failure. */
  failCode: { status_code: number; status_msg: string } | null;
  /** The next answers fail with this HTTP status. */
  failWith: number | null;
  requests: Array<{ path: string; body: Record<string, unknown> }>;
  /** The audio bytes of the last answer. */
  lastAudio: Buffer;
  close(): Promise<void>;
}

export async function startFakeMiniMax(options: { apiKey: string }): Promise<FakeMiniMax> {
  const fake: FakeMiniMax = {
    url: '',
    failCode: null,
    failWith: null,
    requests: [],
    lastAudio: Buffer.alloc(0),
    close: () => closeServer(server),
  };
  const failed = (res: ServerResponse, status_code: number, status_msg: string) =>
    sendJson(res, 200, { trace_id: randomUUID(), base_resp: { status_code, status_msg } });

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://minimax.test');
    if (req.headers.authorization !== `Bearer ${options.apiKey}`)
      return failed(res, 1004, 'login fail: Please carry the API secret key in the Authorization field');
    const speech = url.pathname === '/v1/t2a_v2';
    if (req.method !== 'POST' || (!speech && url.pathname !== '/v1/music_generation'))
      return sendJson(res, 404, { base_resp: { status_code: 404, status_msg: 'not found' } });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    fake.requests.push({ path: url.pathname, body });
    if (fake.failWith) return sendJson(res, fake.failWith, { error: 'bad gateway' });
    if (fake.failCode) return failed(res, fake.failCode.status_code, fake.failCode.status_msg);
    if (typeof body.model !== 'string') return failed(res, 2013, 'invalid params, model is required');
    if (speech && typeof body.text !== 'string') return failed(res, 2013, 'invalid params, text is required');
    if (!speech && (typeof body.prompt !== 'string' || typeof body.lyrics !== 'string'))
      return failed(res, 2013, 'invalid params, prompt and lyrics are required');
    if (body.output_format !== 'hex' || (speech && body.stream !== false))
      return failed(res, 2013, 'this fake answers hex, unstreamed audio only');
    const seed = `${body.model}:${body.text ?? body.prompt}`;
    fake.lastAudio = Buffer.concat(
      Array.from({ length: 50 }, (_, i) => createHash('sha256').update(`${seed}:${i}`).digest()),
    );
    const format = String((body.audio_setting as { format?: unknown } | undefined)?.format ?? 'mp3');
    return sendJson(res, 200, {
      data: { audio: fake.lastAudio.toString('hex'), status: 2 },
      extra_info: speech
        ? {
            audio_length: 1200,
            audio_sample_rate: 32000,
            audio_size: fake.lastAudio.length,
            bitrate: 128000,
            usage_characters: String(body.text).length,
            audio_format: format,
            audio_channel: 1,
          }
        : {
            music_duration: 30000,
            music_sample_rate: 44100,
            music_channel: 2,
            bitrate: 256000,
            music_size: fake.lastAudio.length,
          },
      trace_id: randomUUID(),
      base_resp: { status_code: 0, status_msg: 'success' },
    });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
