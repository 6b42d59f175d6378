/**
 * The Videos API (Sora) of the fake OpenAI media upstream, in OpenAI's wire format:
 * - POST /v1/videos, multipart/form-data (`model`, `prompt`, `seconds`, `size`, an optional `input_reference` image
 *   file) → the video object `{ id, object: 'video', model, status: 'queued', progress: 0, created_at, size, seconds,
 *   error: null, … }`; a bad field is a 400 `invalid_request_error` naming it in `param`;
 * - GET /v1/videos/{id} walks queued → in_progress (progress rising) → completed, or failed with
 *   `error: { code, message }` (`moderation_blocked` for a refused prompt);
 * - GET /v1/videos/{id}/content?variant=video|thumbnail|spritesheet serves a completed video's files;
 * - DELETE /v1/videos/{id} → `{ id, object: 'video.deleted', deleted: true }` for a completed or failed video (the
 *   states OpenAI documents deletion for); one still rendering is refused with a 400 and keeps rendering.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { bytesFor } from './file-bytes.js';

export interface VideoScript {
  /** Reads answered queued / in_progress before the video ends (default 2). */
  polls?: number;
  /** The video ends failed with this error instead of completed. */
  failure?: { code: string; message: string };
  /** The MP4's size in bytes (default 64 KiB). */
  bytes?: number;
  /** Content downloads answer 302 to this storage host, which then serves the file (as a signed URL would). */
  redirectTo?: { url: string; put(path: string, bytes: Buffer, contentType: string): void };
}

export interface FakeVideo {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  createdAt: number;
  reads: number;
  script: VideoScript;
  /** The MP4 the content endpoint serves. */
  mp4: Buffer;
  /** The `input_reference` part as received. */
  reference: { name: string; type: string; bytes: Buffer } | null;
}

const MODELS = ['sora-2', 'sora-2-pro'];
const SECONDS = ['4', '8', '12'];
const SIZES: Record<string, string[]> = {
  'sora-2': ['720x1280', '1280x720'],
  'sora-2-pro': ['720x1280', '1280x720', '1024x1792', '1792x1024'],
};

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function invalid(res: ServerResponse, param: string | null, message: string, status = 400): void {
  json(res, status, { error: { message, type: 'invalid_request_error', param, code: null } });
}

/** The files of a completed video, by variant: the MP4, a WebP thumbnail, a JPEG spritesheet. */
const VARIANTS: Record<string, { type: string; of: (v: FakeVideo) => Buffer }> = {
  video: { type: 'video/mp4', of: (v) => v.mp4 },
  thumbnail: { type: 'image/webp', of: (v) => bytesFor(`${v.id}:thumbnail`, 512, 'image/webp') },
  spritesheet: { type: 'image/jpeg', of: (v) => bytesFor(`${v.id}:spritesheet`, 512, 'image/jpeg') },
};

export class FakeVideos {
  readonly videos = new Map<string, FakeVideo>();
  /** Every DELETE received, with the status it was answered. */
  readonly deletes: Array<{ id: string; status: number }> = [];
  /** Every content download received. */
  readonly downloads: Array<{ id: string; variant: string }> = [];
  script: VideoScript = {};

  /** The video created last. */
  last(): FakeVideo | undefined {
    return [...this.videos.values()].at(-1);
  }

  /** Answers a request under /v1/videos; false when the path is not the Videos API's. */
  async handle(method: string, url: URL, form: FormData | undefined, res: ServerResponse): Promise<boolean> {
    if (method === 'POST' && url.pathname === '/v1/videos') {
      await this.create(form, res);
      return true;
    }
    const match = /^\/v1\/videos\/([\w-]+)(\/content)?$/.exec(url.pathname);
    if (!match) return false;
    const v = this.videos.get(match[1] ?? '');
    if (!v) {
      invalid(res, null, `Video with id '${match[1]}' not found.`, 404);
      return true;
    }
    if (method === 'GET' && match[2]) this.content(v, url.searchParams.get('variant') ?? 'video', res);
    else if (method === 'GET') {
      v.reads += 1;
      json(res, 200, this.objectOf(v));
    } else if (method === 'DELETE') {
      const status = this.statusOf(v);
      const done = status === 'completed' || status === 'failed';
      this.deletes.push({ id: v.id, status: done ? 200 : 400 });
      if (!done) invalid(res, null, `Video '${v.id}' is ${status} and cannot be deleted yet.`);
      else {
        this.videos.delete(v.id);
        json(res, 200, { id: v.id, object: 'video.deleted', deleted: true });
      }
    } else invalid(res, null, `Invalid method ${method} for ${url.pathname}.`, 405);
    return true;
  }

  private async create(form: FormData | undefined, res: ServerResponse): Promise<void> {
    if (!form) return invalid(res, null, 'The Videos API takes multipart/form-data.');
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    const prompt = text('prompt');
    if (!prompt) return invalid(res, 'prompt', "Missing required parameter: 'prompt'.");
    const model = text('model') ?? 'sora-2';
    if (!MODELS.includes(model))
      return invalid(
        res,
        'model',
        `Invalid value: '${model}'. Supported values are: 'sora-2' and 'sora-2-pro'.`,
      );
    const seconds = text('seconds') ?? '4';
    if (!SECONDS.includes(seconds))
      return invalid(
        res,
        'seconds',
        `Invalid value: '${seconds}'. Supported values are: '4', '8', and '12'.`,
      );
    const size = text('size') ?? '720x1280';
    if (!SIZES[model]?.includes(size))
      return invalid(res, 'size', `Invalid value: '${size}'. ${model} supports ${SIZES[model]?.join(', ')}.`);
    const file = form.get('input_reference');
    let reference: FakeVideo['reference'] = null;
    if (file !== null) {
      if (!(file instanceof Blob) || !file.type.startsWith('image/'))
        return invalid(res, 'input_reference', 'input_reference must be an image file (jpeg, png or webp).');
      reference = {
        name: (file as File).name,
        type: file.type,
        bytes: Buffer.from(await file.arrayBuffer()),
      };
    }
    const id = `video_${randomBytes(16).toString('hex')}`;
    const v: FakeVideo = {
      id,
      model,
      prompt,
      seconds,
      size,
      createdAt: Math.floor(Date.now() / 1000),
      reads: 0,
      script: this.script,
      mp4: bytesFor(id, this.script.bytes ?? 64 * 1024, 'video/mp4'),
      reference,
    };
    this.videos.set(id, v);
    json(res, 200, this.objectOf(v));
  }

  private statusOf(v: FakeVideo): string {
    const polls = v.script.polls ?? 2;
    if (v.reads === 0) return 'queued';
    if (v.reads <= polls) return v.reads === 1 ? 'queued' : 'in_progress';
    return v.script.failure ? 'failed' : 'completed';
  }

  private objectOf(v: FakeVideo): Record<string, unknown> {
    const status = this.statusOf(v);
    const polls = v.script.polls ?? 2;
    const ended = status === 'completed' || status === 'failed';
    const now = Math.floor(Date.now() / 1000);
    return {
      id: v.id,
      object: 'video',
      model: v.model,
      status,
      progress: status === 'completed' ? 100 : Math.min(99, Math.floor((100 * v.reads) / (polls + 1))),
      created_at: v.createdAt,
      completed_at: ended ? now : null,
      expires_at: status === 'completed' ? now + 3600 : null,
      prompt: v.prompt,
      size: v.size,
      seconds: v.seconds,
      remixed_from_video_id: null,
      error: status === 'failed' ? v.script.failure : null,
    };
  }

  private content(v: FakeVideo, variant: string, res: ServerResponse): void {
    this.downloads.push({ id: v.id, variant });
    const file = VARIANTS[variant];
    if (!file)
      invalid(
        res,
        'variant',
        `Invalid value: '${variant}'. Supported values are: 'video', 'thumbnail', and 'spritesheet'.`,
      );
    else if (this.statusOf(v) !== 'completed')
      invalid(res, null, `Video '${v.id}' is not completed; its content is not available.`);
    else if (v.script.redirectTo) {
      const path = `/videos/${v.id}/${variant}`;
      v.script.redirectTo.put(path, file.of(v), file.type);
      res.writeHead(302, { location: `${v.script.redirectTo.url}${path}?se=fake` }).end();
    } else res.writeHead(200, { 'content-type': file.type }).end(file.of(v));
  }
}
