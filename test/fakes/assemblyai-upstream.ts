/**
 * A fake AssemblyAI API: a real HTTP server on 127.0.0.1 speaking POST /v2/upload (raw bytes → `{ upload_url }`),
 * POST /v2/transcript (`{ audio_url, speech_models, … }` → the transcript object, `queued`) and
 * GET /v2/transcript/{id} (queued → processing → completed, or `error` with its reason), authenticated by the bare
 * key in `authorization`, with AssemblyAI's `{ error }` bodies. `speech_models` takes the ids AssemblyAI's model
 * selection page documents for pre-recorded audio; any other id (the older `universal`, say) is a 400.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

/** The pre-recorded model ids of AssemblyAI's model selection docs. */
const SPEECH_MODELS = ['universal-3-5-pro', 'universal-3-pro', 'universal-2'];

export interface FakeAssemblyAi {
  url: string;
  /** Every request fails with this HTTP status. */
  failWith: number | null;
  /** The next transcripts end in `error` with this reason. */
  errorWith: string | null;
  /** Bytes received by /v2/upload, by upload URL. */
  uploads: Map<string, Buffer>;
  /** Bodies of POST /v2/transcript. */
  creates: Array<Record<string, unknown>>;
  /** Status reads per transcript id. */
  polls: Map<string, number>;
  close(): Promise<void>;
}

export async function startFakeAssemblyAi(options: { apiKey: string }): Promise<FakeAssemblyAi> {
  const fake: FakeAssemblyAi = {
    url: '',
    failWith: null,
    errorWith: null,
    uploads: new Map(),
    creates: [],
    polls: new Map(),
    close: () => closeServer(server),
  };
  const transcripts = new Map<string, { body: Record<string, unknown>; error: string | null }>();

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://assemblyai.test');
    if (req.headers.authorization !== options.apiKey)
      return sendJson(res, 401, { error: 'Authentication error, API token missing/invalid' });
    if (fake.failWith) return sendJson(res, fake.failWith, { error: `failed with ${fake.failWith}` });
    if (req.method === 'POST' && url.pathname === '/v2/upload') {
      if (raw.length === 0) return sendJson(res, 400, { error: 'Upload body is empty' });
      const uploadUrl = `https://cdn.assemblyai.com/upload/${randomUUID()}`;
      fake.uploads.set(uploadUrl, raw);
      return sendJson(res, 200, { upload_url: uploadUrl });
    }
    if (req.method === 'POST' && url.pathname === '/v2/transcript') {
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      fake.creates.push(body);
      if (typeof body.audio_url !== 'string') return sendJson(res, 400, { error: 'audio_url is required' });
      if (!Array.isArray(body.speech_models) || body.speech_models.length === 0)
        return sendJson(res, 400, { error: 'speech_models must be a non-empty list' });
      const unknown = body.speech_models.find((m) => !SPEECH_MODELS.includes(String(m)));
      if (unknown !== undefined)
        return sendJson(res, 400, {
          error: `Invalid speech model ${JSON.stringify(unknown)}; accepted: ${SPEECH_MODELS.join(', ')}`,
        });
      const id = randomUUID();
      const uploaded = fake.uploads.get(body.audio_url);
      const text = uploaded ? `heard ${uploaded.length} uploaded bytes` : `heard ${body.audio_url}`;
      const transcript = {
        id,
        status: 'queued',
        audio_url: body.audio_url,
        speech_model_used: body.speech_models[0],
        language_code: body.language_code ?? 'en_us',
        text: null,
        words: null,
        error: null,
      };
      transcripts.set(id, {
        body: { ...transcript, text, words: [{ text: 'heard', start: 0, end: 300, confidence: 0.98 }] },
        error: fake.errorWith,
      });
      fake.polls.set(id, 0);
      return sendJson(res, 200, transcript);
    }
    const match = /^\/v2\/transcript\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'GET' && match) {
      const id = match[1] ?? '';
      const t = transcripts.get(id);
      if (!t) return sendJson(res, 404, { error: 'Transcript not found' });
      const reads = (fake.polls.get(id) ?? 0) + 1;
      fake.polls.set(id, reads);
      if (reads === 1) return sendJson(res, 200, { ...t.body, status: 'queued', text: null, words: null });
      if (reads === 2)
        return sendJson(res, 200, { ...t.body, status: 'processing', text: null, words: null });
      if (t.error)
        return sendJson(res, 200, { ...t.body, status: 'error', text: null, words: null, error: t.error });
      return sendJson(res, 200, { ...t.body, status: 'completed', audio_duration: 3 });
    }
    return sendJson(res, 404, { error: 'Not found' });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
