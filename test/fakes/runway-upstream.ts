/**
 * A fake Runway API: a real HTTP server on 127.0.0.1 speaking POST /v1/text_to_video, /v1/image_to_video and
 * /v1/video_to_video (`Authorization: Bearer <secret>`, `X-Runway-Version` required) → `{ id }`;
 * GET /v1/tasks/{id} walks PENDING → RUNNING → SUCCEEDED with `output: [url]` (or FAILED with `failure` and
 * `failureCode`); DELETE /v1/tasks/{id} cancels (204). Output videos are served by the fake under /files/.
 * Errors use Runway's `{ error }` body (400 for invalid input).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from './http.js';

export interface RunwayScript {
  /** Reads answered PENDING / RUNNING before the task ends. */
  polls?: number;
  /** The task fails with this reason and code. */
  failure?: { failure: string; failureCode: string };
  /** The create answers this HTTP status. */
  createStatus?: number;
}

export interface FakeRunway {
  url: string;
  setScript(script: RunwayScript): void;
  creates: Array<{ path: string; body: Record<string, unknown>; version: string | undefined }>;
  cancels: string[];
  /** Output bytes by URL. */
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

const RATIOS = /^\d{3,4}:\d{3,4}$/;

export async function startFakeRunway(options: { secret: string }): Promise<FakeRunway> {
  let script: RunwayScript = {};
  const tasks = new Map<
    string,
    { reads: number; script: RunwayScript; cancelled: boolean; output: string }
  >();
  const fake: FakeRunway = {
    url: '',
    setScript(s) {
      script = s;
    },
    creates: [],
    cancels: [],
    files: new Map(),
    close: () => closeServer(server),
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://runway.test');
    const file = fake.files.get(`${fake.url}${url.pathname}`);
    if (req.method === 'GET' && file) return res.writeHead(200, { 'content-type': 'video/mp4' }).end(file);
    if (req.headers.authorization !== `Bearer ${options.secret}`)
      return sendJson(res, 401, { error: 'Invalid API key' });
    if (req.headers['x-runway-version'] !== '2024-11-06')
      return sendJson(res, 400, { error: 'X-Runway-Version header is required' });
    const create = /^\/v1\/(text_to_video|image_to_video|video_to_video)$/.exec(url.pathname);
    if (req.method === 'POST' && create) {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      fake.creates.push({
        path: url.pathname,
        body,
        version: req.headers['x-runway-version'] as string | undefined,
      });
      if (script.createStatus) return sendJson(res, script.createStatus, { error: 'Task creation failed' });
      if (typeof body.model !== 'string')
        return sendJson(res, 400, { error: 'Validation of body failed', issues: [{ path: ['model'] }] });
      if (create[1] === 'image_to_video' && typeof body.promptImage !== 'string')
        return sendJson(res, 400, {
          error: 'Validation of body failed',
          issues: [{ path: ['promptImage'] }],
        });
      if (create[1] === 'video_to_video' && typeof body.videoUri !== 'string')
        return sendJson(res, 400, { error: 'Validation of body failed', issues: [{ path: ['videoUri'] }] });
      if (body.ratio !== undefined && !RATIOS.test(String(body.ratio)))
        return sendJson(res, 400, { error: 'Validation of body failed', issues: [{ path: ['ratio'] }] });
      // gen4.5 from text alone takes only the two 720p ratios (Runway's API reference).
      if (
        create[1] === 'text_to_video' &&
        body.model === 'gen4.5' &&
        !['1280:720', '720:1280'].includes(String(body.ratio))
      )
        return sendJson(res, 400, { error: 'Validation of body failed', issues: [{ path: ['ratio'] }] });
      const id = randomUUID();
      const output = `${fake.url}/files/${id}.mp4`;
      const bytes = Buffer.concat(
        Array.from({ length: 64 }, (_, i) => createHash('sha256').update(`${id}:${i}`).digest()),
      );
      fake.files.set(output, bytes);
      tasks.set(id, { reads: 0, script, cancelled: false, output });
      return sendJson(res, 200, { id });
    }
    const match = /^\/v1\/tasks\/([\w-]+)$/.exec(url.pathname);
    const t = match ? tasks.get(match[1] ?? '') : undefined;
    if (match && !t) return sendJson(res, 404, { error: 'Task not found' });
    if (req.method === 'DELETE' && match && t) {
      t.cancelled = true;
      fake.cancels.push(match[1] ?? '');
      return res.writeHead(204).end();
    }
    if (req.method === 'GET' && match && t) {
      const id = match[1] ?? '';
      t.reads += 1;
      const base = { id, createdAt: new Date().toISOString() };
      if (t.cancelled) return sendJson(res, 200, { ...base, status: 'CANCELLED' });
      const polls = t.script.polls ?? 2;
      if (t.reads <= polls)
        return sendJson(
          res,
          200,
          t.reads === 1 ? { ...base, status: 'PENDING' } : { ...base, status: 'RUNNING', progress: 0.5 },
        );
      if (t.script.failure) return sendJson(res, 200, { ...base, status: 'FAILED', ...t.script.failure });
      return sendJson(res, 200, { ...base, status: 'SUCCEEDED', output: [t.output] });
    }
    return sendJson(res, 404, { error: 'Not found' });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
