/**
 * The model inference routes: POST /v1/infer (any catalog model by id or full run id) and the capability routes
 * (/v1/images/generations, /v1/video/generations, /v1/audio/speech, /v1/audio/transcriptions,
 * /v1/music/generations), each taking the models of its categories; a model of another category is a 400 naming
 * its route. The answer is `{ model, costMicroUsd, output, receipt }`, the output nested.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { CATEGORY_ROUTES, INFER_ROUTE } from '../catalog/category-routes.js';
import { resolveEntry } from '../catalog/resolve.js';
import { type CheckoutDeps, sell } from '../checkout/pipeline.js';
import type { Deps } from '../deps.js';
import { parseJsonBody } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors } from '../http/openapi.js';
import { inlineFileAliases } from '../offers/media-files.js';
import { CHANNEL_ROUTES } from '../rails/channel/paths.js';
import { channelVariant } from './channel-variants.js';

const MediaObject = z
  .object({ url: z.url(), contentType: z.string(), sizeBytes: z.number().int() })
  .openapi('MediaObject');

const InferenceResult = z
  .object({
    model: z.string(),
    costMicroUsd: z.number().int(),
    output: z.union([
      MediaObject.extend({ files: z.array(MediaObject).optional() }),
      z.record(z.string(), z.unknown()),
    ]),
    receipt: z.record(z.string(), z.unknown()),
  })
  .openapi('InferenceResult');

const ROUTES: Array<{ path: string; summary: string; example: string }> = [
  {
    path: INFER_ROUTE,
    summary: 'Run any catalog model by id',
    example: 'black-forest-labs/flux-schnell@fal',
  },
  { path: '/v1/images/generations', summary: 'Text-to-image', example: 'black-forest-labs/flux-schnell@fal' },
  {
    path: '/v1/video/generations',
    summary: 'Text-to-video, image-to-video, video-to-video',
    example: 'kwaivgi/kling-v2.5-turbo-pro',
  },
  { path: '/v1/audio/speech', summary: 'Text-to-speech', example: 'openai/tts-1' },
  { path: '/v1/audio/transcriptions', summary: 'Speech-to-text', example: 'openai/whisper-1' },
  { path: '/v1/music/generations', summary: 'Music', example: 'stability-ai/stable-audio-2.5' },
];

function openApiRoute(path: string, summary: string, example: string) {
  return createRoute({
    method: 'post',
    path,
    tags: ['inference'],
    summary,
    description:
      "Body: `model` and the model's own inputs at the top level (GET /v1/schema?model=). File inputs take a public " +
      'URL, a data URI, raw base64 in `<field>_base64` (or the generic `audio_url`/`audio_base64`, `image_…`, ' +
      '`video_…`), or a /v1/media link. Media results are re-hosted: `output` is `{ url, contentType, sizeBytes }` ' +
      'with a /v1/media link (and `files` listing every file when the model made several); text results are the ' +
      "provider's own body (`{ text, … }`). Charged the quote, only on success.",
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.object({ model: z.string().openapi({ example }) }).passthrough(),
          },
        },
      },
    },
    responses: {
      200: { description: 'The result', content: { 'application/json': { schema: InferenceResult } } },
      ...pickErrors(400, 401, 402, 404, 409, 413, 429, 502, 503, 504),
    },
  });
}

const jobRoute = createRoute({
  method: 'get',
  path: '/v1/jobs/{id}',
  tags: ['inference'],
  summary: 'Status of an async job',
  description:
    'A paid call sent with `Prefer: respond-async` (prepaid key, queue-backed models) answers 202 `{ job_id, status, ' +
    'status_url }`. This free route answers `{ job_id, status: queued | running | succeeded | failed, result?, error? }` ' +
    'from any instance; `result` is the body the synchronous call would have answered. The charge is captured only ' +
    'when the job succeeds.',
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: {
      description: 'Where the job stands',
      content: {
        'application/json': {
          schema: z.object({
            job_id: z.string(),
            status: z.enum(['queued', 'running', 'succeeded', 'failed']),
            result: InferenceResult.optional(),
            error: z.record(z.string(), z.unknown()).optional(),
          }),
        },
      },
    },
    ...pickErrors(404),
  },
});

export function mountModelRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  app.openAPIRegistry.registerPath(jobRoute);
  app.get('/v1/jobs/:id', async (c: Context<AppEnv>) => {
    const id = c.req.param('id') ?? '';
    const status = /^job_[0-9a-f]{32}$/.test(id) ? await deps.jobs.status(id) : null;
    if (!status) throw new ApiError('not_found', `no job ${id}`);
    return c.json(status, 200, { 'cache-control': 'no-store' });
  });
  for (const route of ROUTES) {
    const openApi = openApiRoute(route.path, route.summary, route.example);
    app.openAPIRegistry.registerPath(openApi);
    const handle = (c: Context<AppEnv>) => {
      const x = exchangeOf(c);
      return sell(x, checkoutDeps, async () => {
        const raw = await x.readBody(BODY_LIMITS.media);
        const body = parseJsonBody(raw);
        const entry = resolveEntry(deps.catalog, body.model);
        if (entry.kind !== 'model')
          throw invalidInput([
            { field: 'model', message: `${entry.id} is a tool: call POST /v1/${entry.id}` },
          ]);
        const home = CATEGORY_ROUTES[entry.category];
        if (route.path !== INFER_ROUTE && home !== route.path)
          throw invalidInput([
            {
              field: 'model',
              message: `${entry.id} is a ${entry.category} model: call ${home} (or ${INFER_ROUTE})`,
            },
          ]);
        if (entry.category !== 'chat') await inlineFileAliases(entry, body);
        return { offer: deps.offers.offerFor(entry), input: body, rawBody: raw, nestOutput: true };
      });
    };
    app.post(route.path, handle);
    if (route.path === INFER_ROUTE && deps.channels) {
      app.openAPIRegistry.registerPath(channelVariant(openApi));
      app.post(`${CHANNEL_ROUTES}:id/infer`, handle);
    }
  }
}
