/** POST /v1/media (raw bytes in, streamed to the store) and GET /v1/media/{key} (bytes out, with Range and ETag). */
import { Readable } from 'node:stream';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { sendStream } from '../http/node-response.js';
import { pickErrors } from '../http/openapi.js';
import { acceptedMediaType, isMediaKey } from '../media/keys.js';
import { parseRange } from '../media/service.js';
import { isInlineSafe } from '../media/sniff.js';
import { MediaTooLargeError, MediaTypeMismatchError } from '../media/store.js';

/**
 * Headers every media answer carries, so that a stored file can never run as a page of kasir's origin: no type
 * sniffing, a sandbox with nothing allowed should a browser open it as a document, and a download instead of a
 * page for every type a browser would run (SVG, HTML, XML, script: anything not a raster image, audio or video).
 */
function safetyHeaders(key: string, contentType: string): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'",
    ...(isInlineSafe(contentType) ? {} : { 'content-disposition': `attachment; filename="${key}"` }),
  };
}

const MediaObjectSchema = z
  .object({
    url: z.url().openapi({ example: 'http://127.0.0.1:8402/v1/media/0123456789abcdef0123456789abcdef.png' }),
    contentType: z.string().openapi({ example: 'image/png' }),
    sizeBytes: z.number().int(),
  })
  .openapi('MediaObject');

const uploadRoute = createRoute({
  method: 'post',
  path: '/v1/media',
  tags: ['media'],
  summary: 'Upload a file (raw bytes) to pass as a model input',
  description:
    'The body is the file itself (not multipart); Content-Type image/*, video/* or audio/*; at most 40 MB. ' +
    'The bytes must be what Content-Type says (read from their signature; SVG, HTML and XML from their markup): ' +
    'a mismatch is a 400 naming both types.',
  request: {
    body: {
      required: true,
      content: {
        'image/*': { schema: z.string().openapi({ format: 'binary' }) },
        'video/*': { schema: z.string().openapi({ format: 'binary' }) },
        'audio/*': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
  },
  responses: {
    201: { description: 'Stored', content: { 'application/json': { schema: MediaObjectSchema } } },
    ...pickErrors(400, 413, 415, 429),
  },
});

const downloadRoute = createRoute({
  method: 'get',
  path: '/v1/media/{key}',
  tags: ['media'],
  summary: 'Download a stored file',
  request: {
    params: z.object({
      key: z.string().openapi({ description: '32 lowercase hex characters, optionally . and an extension' }),
    }),
    headers: z.object({ range: z.string().optional().openapi({ example: 'bytes=0-1023' }) }),
  },
  responses: {
    200: {
      description: 'The bytes',
      content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    206: {
      description: 'The requested range',
      content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    304: { description: 'Not modified (If-None-Match matched)' },
    ...pickErrors(400, 404, 429),
    416: { description: 'Range not satisfiable' },
  },
});

export function mountMediaRoutes(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  const { media } = deps;
  app.openAPIRegistry.registerPath(uploadRoute);
  app.openAPIRegistry.registerPath(downloadRoute);

  app.post('/v1/media', async (c) => {
    const contentType = acceptedMediaType(c.req.header('content-type'));
    if (!contentType) {
      throw new ApiError(
        'unsupported_media_type',
        'Content-Type must be image/*, video/* or audio/* (raw bytes, not multipart)',
        {
          got: c.req.header('content-type') ?? null,
        },
      );
    }
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > media.maxBytes) {
      throw new ApiError('payload_too_large', `media is limited to ${media.maxBytes} bytes`, {
        limitBytes: media.maxBytes,
      });
    }
    if (declared === '0')
      throw new ApiError('invalid_input', 'the body is empty; send the file bytes', [
        { field: 'body', message: 'empty' },
      ]);
    const incoming = c.env?.incoming;
    const body = incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as never) : Readable.from([]));
    let saved: Awaited<ReturnType<typeof media.save>>;
    try {
      saved = await media.save(contentType, body, media.maxBytes, 'caller');
    } catch (err) {
      if (err instanceof MediaTypeMismatchError) {
        incoming?.resume();
        const actual = err.detected ?? 'of no recognised media type';
        throw new ApiError(
          'invalid_input',
          `the body is ${actual}, but Content-Type says ${err.declared}; nothing was kept`,
          [{ field: 'body', message: `is ${actual}, not ${err.declared} (the Content-Type header)` }],
        );
      }
      if (err instanceof MediaTooLargeError) {
        // Drain what the client still sends so it reads our 413 instead of a reset connection.
        incoming?.resume();
        throw new ApiError(
          'payload_too_large',
          `media is limited to ${media.maxBytes} bytes; nothing was kept`,
          {
            limitBytes: media.maxBytes,
          },
        );
      }
      throw err;
    }
    if (saved.sizeBytes === 0) {
      await media.delete(saved.key);
      throw new ApiError('invalid_input', 'the body is empty; send the file bytes', [
        { field: 'body', message: 'empty' },
      ]);
    }
    return c.json({ url: saved.url, contentType: saved.contentType, sizeBytes: saved.sizeBytes }, 201);
  });

  app.on(['GET', 'HEAD'], '/v1/media/:key', async (c) => {
    const key = c.req.param('key');
    if (!isMediaKey(key)) {
      throw new ApiError(
        'invalid_input',
        'media key must be 32 lowercase hex characters, optionally followed by . and an extension',
        [{ field: 'key', message: 'bad format' }],
      );
    }
    const meta = await media.head(key);
    if (!meta) throw new ApiError('media_not_found', `no media object ${key}`);
    const common = {
      ...safetyHeaders(key, meta.content_type),
      'content-type': meta.content_type,
      etag: meta.etag,
      'accept-ranges': 'bytes',
      'cache-control': 'public, max-age=31536000, immutable',
    };
    if (c.req.header('if-none-match') === meta.etag) return sendStream(c, 304, common, null);
    const range = parseRange(c.req.header('range'), meta.size_bytes);
    if (range.kind === 'unsatisfiable') {
      return sendStream(c, 416, { 'content-range': `bytes */${meta.size_bytes}` }, null);
    }
    const r = range.kind === 'range' ? range.range : undefined;
    // A HEAD only needs the bytes to be there: one of them is read, not the object (from S3, a whole GET that
    // would be cut off mid-transfer).
    const probe = c.req.method === 'HEAD' && meta.size_bytes > 0 ? { start: 0, end: 0 } : r;
    const opened = await media.open(key, probe);
    if (!opened) throw new ApiError('media_not_found', `no media object ${key}`);
    if (!r) return sendStream(c, 200, { ...common, 'content-length': String(meta.size_bytes) }, opened.body);
    return sendStream(
      c,
      206,
      {
        ...common,
        'content-length': String(r.end - r.start + 1),
        'content-range': `bytes ${r.start}-${r.end}/${meta.size_bytes}`,
      },
      opened.body,
    );
  });
}
