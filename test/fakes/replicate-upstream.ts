/**
 * A fake Replicate API: a real HTTP server on 127.0.0.1 speaking the predictions API for official models.
 * POST /v1/models/{owner}/{name}/predictions (`{ input }`, `Authorization: Bearer <token>`) answers 201 with the
 * prediction `{ id, model, input, status, output, error, logs, created_at, urls: { get, cancel } }`; with
 * `Prefer: wait` a quick prediction comes back already `succeeded`. GET /v1/predictions/{id} walks starting →
 * processing → succeeded (or failed with `error`, or aborted); a read can be scripted to fail with 429 (with
 * `Retry-After`) or 5xx, as Replicate's API does under load; POST /v1/predictions/{id}/cancel marks it canceled. Output
 * files are served by the fake under /files/. Invalid input answers 422 with Replicate's problem body.
 */
import { createServer } from 'node:http';
import { bytesFor } from './file-bytes.js';
import { closeServer, listen, sendJson } from './http.js';

export interface ReplicateScript {
  /** Reads of a prediction answered `starting` / `processing` before it ends (0: done within `Prefer: wait`). */
  polls?: number;
  /** The prediction fails with this error message. */
  error?: string;
  /** The create answers this status (422: an invalid input). */
  createStatus?: number;
  /** The output is a list of this many files (else one URL string). */
  files?: number;
  /** The prediction's first reads fail with these statuses, in order (a 429 carries `Retry-After`). */
  readFaults?: number[];
  /** Every read of the prediction fails with this status. */
  readDown?: number;
  /** The prediction ends `aborted` (stopped before it started: a deadline passed while it was queued). */
  aborted?: boolean;
}

export interface FakeReplicate {
  url: string;
  setScript(script: ReplicateScript): void;
  creates: Array<{ model: string; body: Record<string, unknown>; prefer: string | undefined }>;
  cancels: string[];
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

export async function startFakeReplicate(options: { token?: string } = {}): Promise<FakeReplicate> {
  let script: ReplicateScript = {};
  let seq = 0;
  const predictions = new Map<
    string,
    { model: string; input: unknown; reads: number; script: ReplicateScript; canceled: boolean }
  >();
  const fake: FakeReplicate = {
    url: '',
    setScript(s) {
      script = s;
    },
    creates: [],
    cancels: [],
    files: new Map(),
    close: () => closeServer(server),
  };

  const view = (id: string, done: boolean) => {
    const p = predictions.get(id);
    if (!p) return null;
    const urls = {
      get: `${fake.url}/v1/predictions/${id}`,
      cancel: `${fake.url}/v1/predictions/${id}/cancel`,
    };
    const base = {
      id,
      model: p.model,
      version: 'hidden',
      input: p.input,
      logs: '',
      created_at: '2026-11-25T00:00:00Z',
      urls,
    };
    if (p.canceled) return { ...base, status: 'canceled', output: null, error: null };
    if (done && p.script.aborted) return { ...base, status: 'aborted', output: null, error: null };
    if (!done)
      return { ...base, status: p.reads <= 1 ? 'starting' : 'processing', output: null, error: null };
    if (p.script.error) return { ...base, status: 'failed', output: null, error: p.script.error };
    const names = Array.from({ length: p.script.files ?? 1 }, (_, i) => `${id}/out-${i}.webp`);
    const out = names.map((n) => {
      const url = `${fake.url}/files/${n}`;
      fake.files.set(url, bytesFor(n, 2500, 'image/webp'));
      return url;
    });
    return {
      ...base,
      status: 'succeeded',
      output: p.script.files ? out : out[0],
      error: null,
      metrics: { predict_time: 0.8 },
    };
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? '/';
    if (req.method === 'GET' && path.startsWith('/files/')) {
      const file = fake.files.get(`${fake.url}${path}`);
      if (!file) return sendJson(res, 404, { detail: 'Not found.' });
      return res
        .writeHead(200, { 'content-type': 'image/webp', 'content-length': String(file.length) })
        .end(file);
    }
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`)
      return sendJson(res, 401, {
        title: 'Unauthenticated',
        detail: 'You did not pass a valid authentication token',
        status: 401,
      });
    const create = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(path);
    if (req.method === 'POST' && create) {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const prefer = req.headers.prefer as string | undefined;
      fake.creates.push({ model: String(create[1]), body, prefer });
      if (script.createStatus === 422)
        return sendJson(res, 422, {
          title: 'Input validation failed',
          detail: '- input.prompt: Does not match format',
          status: 422,
          invalid_fields: [{ type: 'format', field: 'input.prompt', description: 'Does not match format' }],
        });
      if (script.createStatus)
        return sendJson(res, script.createStatus, {
          title: 'Internal Server Error',
          status: script.createStatus,
        });
      const id = `rpl${(++seq).toString(36)}x${Date.now().toString(36)}`;
      predictions.set(id, {
        model: String(create[1]),
        input: body.input,
        reads: 0,
        script: { ...script, readFaults: [...(script.readFaults ?? [])] },
        canceled: false,
      });
      const done = prefer?.startsWith('wait') === true && (script.polls ?? 0) === 0;
      return sendJson(res, 201, view(id, done));
    }
    const get = /^\/v1\/predictions\/([\w-]+)(\/cancel)?$/.exec(path);
    if (get) {
      const id = String(get[1]);
      const p = predictions.get(id);
      if (!p)
        return sendJson(res, 404, {
          title: 'Not found',
          detail: 'The requested resource could not be found.',
          status: 404,
        });
      if (req.method === 'POST' && get[2]) {
        fake.cancels.push(id);
        // A prediction already at its end stays as it is (Replicate answers it unchanged).
        if (p.reads > (p.script.polls ?? 0) && !p.script.readDown) return sendJson(res, 200, view(id, true));
        p.canceled = true;
        return sendJson(res, 200, view(id, false));
      }
      if (req.method === 'GET' && !get[2]) {
        const fault = p.script.readDown ?? p.script.readFaults?.shift();
        if (fault === 429) {
          res.setHeader('retry-after', '1');
          return sendJson(res, 429, {
            title: 'Request was throttled.',
            detail: 'Request was throttled. Expected available in 1 second.',
            status: 429,
          });
        }
        if (fault) return sendJson(res, fault, { title: 'Service Unavailable', status: fault });
        p.reads++;
        return sendJson(res, 200, view(id, p.reads > (p.script.polls ?? 0)));
      }
    }
    return sendJson(res, 404, { title: 'Not found', status: 404 });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
