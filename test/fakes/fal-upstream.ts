/**
 * A fake fal queue: a real HTTP server on 127.0.0.1 speaking fal's queue API. POST /{endpoint} (auth
 * `Authorization: Key <key>`) answers the submit receipt `{ request_id, response_url, status_url, cancel_url,
 * queue_position }`; GET /{app}/requests/{id}/status walks IN_QUEUE → IN_PROGRESS → COMPLETED (with `error` and
 * `error_type` when the job fails); GET /{app}/requests/{id} answers the model's output, whose files are fal File
 * objects served by the fake itself under /files/; PUT /{app}/requests/{id}/cancel answers 202
 * CANCELLATION_REQUESTED. Errors use fal's `{ detail }` bodies (422 with a list of `{ loc, msg, type }`).
 *
 *   const fal = await startFakeFal({ apiKey: 'fal-key' });
 *   fal.setScript({ polls: 2, output: 'video', fileBytes: 1_000_000 });
 *   ... fal.files.get(url) ... fal.submits[0].body ... fal.cancels ...
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { bytesFor } from './file-bytes.js';
import { closeServer, listen, sendJson } from './http.js';

/** A transient failure as fal's queue answers it: a 429 with `Retry-After`, or a 5xx, each with a `detail`. */
function sendFault(res: ServerResponse, status: number, retryAfterSeconds: number): void {
  if (status === 429) {
    res.setHeader('retry-after', String(retryAfterSeconds));
    sendJson(res, 429, { detail: 'Too many requests, please slow down' });
    return;
  }
  sendJson(res, status, { detail: status === 503 ? 'Service Unavailable' : 'Internal Server Error' });
}

export type FalOutputKind = 'image' | 'video' | 'audio' | 'text';

export interface FalScript {
  /** Status reads answered IN_QUEUE / IN_PROGRESS before COMPLETED (default 1). */
  polls?: number;
  /** What the output holds; by default guessed from the endpoint id. */
  output?: FalOutputKind;
  /** Size of each produced file (default 2048 bytes). */
  fileBytes?: number;
  /** The submit fails with this HTTP status. */
  submitStatus?: number;
  /** The submit is answered only after this many ms (a queue slow to take the job). */
  submitStallMs?: number;
  /** The job completes with an error of this `error_type` (a runner error, or a content-policy refusal). */
  jobError?: string;
  /** The result read fails with this status (422: a validation error naming `prompt`). */
  resultStatus?: number;
  /** The image output's safety checker flags every image. */
  nsfw?: boolean;
  /** The produced files hold these bytes (served under the output kind's content type), not generated ones. */
  fileContent?: Buffer;
  /** Results point at this URL instead of the fake's own file (a private or foreign host). */
  resultUrl?: string;
  /** The result files are served this slowly: one chunk every this many ms. */
  fileChunkDelayMs?: number;
  /** The job's first status reads fail with these statuses, in order (a 429 carries `Retry-After`). */
  statusFaults?: number[];
  /** Every status read of the job fails with this status (a queue that stays down). */
  statusDown?: number;
  /** The job's first result reads fail with these statuses, in order. */
  resultFaults?: number[];
  /** The `Retry-After` (seconds) sent with a 429 (default 1). */
  retryAfterSeconds?: number;
  /** The job's first status read is answered only after this many ms (a read that hangs). */
  statusStallMs?: number;
}

export interface FalSubmit {
  endpoint: string;
  requestId: string;
  body: Record<string, unknown>;
}

export interface FakeFal {
  url: string;
  setScript(script: FalScript): void;
  /** A script for one endpoint only (other endpoints keep the general one); `undefined` removes it. */
  setEndpointScript(endpoint: string, script: FalScript | undefined): void;
  submits: FalSubmit[];
  cancels: string[];
  statusReads: number;
  /** The bytes of each file the fake produced, by its URL. */
  files: Map<string, { bytes: Buffer; contentType: string }>;
  close(): Promise<void>;
}

const TYPES: Record<FalOutputKind, string> = {
  image: 'image/png',
  video: 'video/mp4',
  audio: 'audio/mpeg',
  text: '',
};

function guessOutput(endpoint: string): FalOutputKind {
  if (/wizper|speech-to-text|whisper/.test(endpoint)) return 'text';
  if (/video|veo|kling|hailuo|seedance|ray-2|pixverse|wan/.test(endpoint)) return 'video';
  if (/speech|tts|kokoro|music|audio|lyria/.test(endpoint)) return 'audio';
  return 'image';
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startFakeFal(options: { apiKey?: string } = {}): Promise<FakeFal> {
  let script: FalScript = {};
  const endpointScripts = new Map<string, FalScript>();
  const jobs = new Map<
    string,
    {
      endpoint: string;
      reads: number;
      script: FalScript;
      body: Record<string, unknown>;
    }
  >();
  let seq = 0;
  const fake: FakeFal = {
    url: '',
    setScript(s) {
      script = s;
    },
    setEndpointScript(endpoint, s) {
      if (s) endpointScripts.set(endpoint, s);
      else endpointScripts.delete(endpoint);
    },
    submits: [],
    cancels: [],
    statusReads: 0,
    files: new Map(),
    close: () => closeServer(server),
  };

  const output = (
    id: string,
    job: { endpoint: string; script: FalScript; body: Record<string, unknown> },
  ) => {
    const kind = job.script.output ?? guessOutput(job.endpoint);
    if (kind === 'text') {
      return {
        text: `transcript of ${String(job.body.audio_url).slice(0, 40)}`,
        chunks: [{ timestamp: [0, 1.5], text: 'hello' }],
      };
    }
    const count = kind === 'image' ? Number(job.body.num_images ?? 1) : 1;
    const files = Array.from({ length: count }, (_, i) => {
      const name = `${id}-${i}.${kind === 'image' ? 'png' : kind === 'video' ? 'mp4' : 'mp3'}`;
      const url = job.script.resultUrl ?? `${fake.url}/files/${name}`;
      const bytes = job.script.fileContent ?? bytesFor(name, job.script.fileBytes ?? 2048, TYPES[kind]);
      if (!job.script.resultUrl) fake.files.set(url, { bytes, contentType: TYPES[kind] });
      return { url, content_type: TYPES[kind], file_name: name, file_size: bytes.length };
    });
    if (kind === 'image')
      return {
        images: files.map((f) => ({ ...f, width: 1024, height: 768 })),
        seed: 42,
        has_nsfw_concepts: files.map(() => job.script.nsfw === true),
        prompt: job.body.prompt,
        timings: { inference: 0.4 },
      };
    return kind === 'video' ? { video: files[0], seed: 7 } : { audio: files[0], duration_ms: 1500 };
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fal.test');
    const path = url.pathname;
    if (req.method === 'GET' && path.startsWith('/files/')) {
      const file = fake.files.get(`${fake.url}${path}`);
      if (!file) return sendJson(res, 404, { detail: 'Not Found' });
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
      const delay = script.fileChunkDelayMs;
      if (!delay) return res.end(file.bytes);
      for (let at = 0; at < file.bytes.length; at += 65536) {
        if (!res.write(file.bytes.subarray(at, at + 65536))) await new Promise((r) => res.once('drain', r));
        await new Promise((r) => setTimeout(r, delay));
      }
      return res.end();
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Key ${options.apiKey}`)
      return sendJson(res, 401, { detail: 'No user found for Key ID and Secret' });
    const m = /^\/([^/]+\/[^/]+)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(path);
    if (m) {
      const [, app, id, tail] = m as unknown as [string, string, string, string | undefined];
      const job = jobs.get(id);
      if (!job) return sendJson(res, 404, { detail: `Request ${id} not found` });
      const root = `${fake.url}/${app}/requests/${id}`;
      const after = job.script.retryAfterSeconds ?? 1;
      if (req.method === 'GET' && tail === '/status') {
        fake.statusReads++;
        const stall = job.script.statusStallMs;
        if (stall) {
          job.script.statusStallMs = undefined;
          await new Promise((r) => setTimeout(r, stall));
        }
        if (job.script.statusDown) return sendFault(res, job.script.statusDown, after);
        const fault = job.script.statusFaults?.shift();
        if (fault) return sendFault(res, fault, after);
        job.reads++;
        const polls = job.script.polls ?? 1;
        if (job.reads <= polls)
          return sendJson(res, 200, {
            status: job.reads === 1 ? 'IN_QUEUE' : 'IN_PROGRESS',
            queue_position: job.reads === 1 ? 0 : undefined,
            response_url: root,
            logs: null,
          });
        if (job.script.jobError)
          return sendJson(res, 200, {
            status: 'COMPLETED',
            response_url: root,
            error:
              job.script.jobError === 'content_policy_violation'
                ? 'The content could not be processed because it contained material flagged by a content checker.'
                : 'Internal error while running the model',
            error_type: job.script.jobError,
            logs: null,
          });
        return sendJson(res, 200, {
          status: 'COMPLETED',
          response_url: root,
          logs: null,
          metrics: { inference_time: 0.4 },
        });
      }
      if (req.method === 'PUT' && tail === '/cancel') {
        fake.cancels.push(id);
        // fal refuses to cancel a request that has already run to its end.
        if (job.reads > (job.script.polls ?? 1)) return sendJson(res, 400, { status: 'ALREADY_COMPLETED' });
        return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
      }
      if (req.method === 'GET' && tail === undefined) {
        // fal answers a result read of an unfinished request 400 (`Request is still in progress`).
        if (job.reads <= (job.script.polls ?? 1))
          return sendJson(res, 400, { detail: 'Request is still in progress' });
        const fault = job.script.resultFaults?.shift();
        if (fault) return sendFault(res, fault, after);
        if (job.script.resultStatus === 422)
          return sendJson(res, 422, {
            detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }],
          });
        if (job.script.resultStatus)
          return sendJson(res, job.script.resultStatus, { detail: 'Internal Server Error' });
        return sendJson(res, 200, output(id, job));
      }
      return sendJson(res, 405, { detail: 'Method Not Allowed' });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { detail: 'Not Found' });
    const endpoint = path.slice(1);
    const body = await readJson(req);
    const own = endpointScripts.get(endpoint) ?? script;
    if (own.submitStallMs) await new Promise((r) => setTimeout(r, own.submitStallMs));
    if (res.destroyed) return;
    if (own.submitStatus)
      return sendJson(res, own.submitStatus, { detail: 'Service temporarily unavailable' });
    const id = `0199${(++seq).toString(16).padStart(4, '0')}-fake-4e6b-9d1a-${Date.now().toString(16)}`;
    jobs.set(id, {
      endpoint,
      reads: 0,
      script: {
        ...own,
        statusFaults: [...(own.statusFaults ?? [])],
        resultFaults: [...(own.resultFaults ?? [])],
      },
      body,
    });
    fake.submits.push({ endpoint, requestId: id, body });
    const app = endpoint.split('/').slice(0, 2).join('/');
    const root = `${fake.url}/${app}/requests/${id}`;
    sendJson(res, 200, {
      request_id: id,
      response_url: root,
      status_url: `${root}/status`,
      cancel_url: `${root}/cancel`,
      queue_position: 0,
    });
  });
  fake.url = `${await listen(server)}`;
  return fake;
}
