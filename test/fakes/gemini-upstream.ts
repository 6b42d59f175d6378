/**
 * A fake Google Gemini API: a real HTTP server on 127.0.0.1 speaking
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse (events separated by
 * `\r\n\r\n` as the real service does), with function calls carrying thought signatures, thought parts,
 * usageMetadata and the provider's real error bodies. When given a key it checks `x-goog-api-key` and
 * answers a wrong one the real way (400 INVALID_ARGUMENT, reason API_KEY_INVALID). It refuses what the real
 * API refuses (see `ruleBroken`: thinking settings the model does not take, a Gemini 3 function call replayed
 * without its thought signature).
 *
 *   const fake = await startFakeGemini({ apiKey: 'gm-test' });
 *   // configure GEMINI_BASE_URL = fake.url, GEMINI_API_KEY = 'gm-test'
 *   fake.setScript({ text: 'Halo', events: 10, delayMs: 5 });
 *
 * Scripts and failure modes: see chat-upstream.ts (`no_usage` leaves out usageMetadata, `no_done` leaves
 * out the finishReason). The default answer echoes the image inputs it received.
 */
import type { ServerResponse } from 'node:http';
import {
  describeInline,
  earlyFailure,
  echoText,
  type FakeChatScript,
  type FakeUpstream,
  type FakeUpstreamOptions,
  finishOf,
  playStream,
  type RecordedRequest,
  sendJson,
  splitText,
  startFakeUpstream,
  usageOf,
} from './chat-upstream.js';

export type { FakeChatScript, FakeUpstream, FakeUpstreamOptions, RecordedRequest } from './chat-upstream.js';

const ERROR_STATUS: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  403: { status: 'PERMISSION_DENIED', message: "Method doesn't allow unregistered callers." },
  404: { status: 'NOT_FOUND', message: 'models/gemini-unknown is not found for API version v1beta.' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  500: { status: 'INTERNAL', message: 'An internal error has occurred.' },
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
};

/** Google's error body: { error: { code, message, status } }. */
export function geminiErrorBody(status: number, message?: string, details?: unknown[]): unknown {
  const known = ERROR_STATUS[status] ?? { status: 'UNKNOWN', message: `HTTP ${status}` };
  return {
    error: {
      code: status,
      message: message ?? known.message,
      status: known.status,
      ...(details ? { details } : {}),
    },
  };
}

/**
 * The documented request rules the real API enforces with a 400: one of thinkingBudget and thinkingLevel, the
 * level only on Gemini 3, no thinking off on 2.5 Pro, no thinking on 2.0, and on Gemini 3 a thought signature on
 * the first function call of every model turn (kasir sends Google's documented skip value when it has none).
 */
function ruleBroken(model: string, body: Record<string, unknown>): string | undefined {
  const config = (body.generationConfig as { thinkingConfig?: Record<string, unknown> } | undefined)
    ?.thinkingConfig;
  if (config) {
    if (/^gemini-(1|2\.0)/.test(model)) return `Thinking is not supported for models/${model}.`;
    if (config.thinkingBudget !== undefined && config.thinkingLevel !== undefined)
      return 'You can only set only one of thinking budget and thinking level.';
    if (config.thinkingLevel !== undefined && /^gemini-2\./.test(model))
      return 'Thinking level is not supported for this model.';
    if (config.thinkingBudget === 0 && model.startsWith('gemini-2.5-pro'))
      return 'Budget 0 is invalid. This model only works in thinking mode.';
  }
  if (!/^gemini-3/.test(model)) return undefined;
  const contents = body.contents as Array<{ role?: string; parts?: Array<Record<string, unknown>> }>;
  for (const [i, content] of contents.entries()) {
    if (content.role !== 'model') continue;
    const call = (content.parts ?? []).find((part) => part.functionCall !== undefined);
    if (call && typeof call.thoughtSignature !== 'string') {
      const name = String((call.functionCall as { name?: unknown }).name);
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
  }
  return undefined;
}

const FINISH_REASON = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
} as const;
const PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?.*)?$/;

export function startFakeGemini(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(options, '', async (request, script, res) => {
    const match = PATH.exec(request.path);
    if (request.method !== 'POST' || !match) {
      sendJson(res, 404, geminiErrorBody(404, `Not found: ${request.path}`), request);
      return;
    }
    const key = request.headers['x-goog-api-key'];
    if (options.apiKey !== undefined && key === undefined) {
      sendJson(res, 403, geminiErrorBody(403), request);
      return;
    }
    if (options.apiKey !== undefined && key !== options.apiKey) {
      const details = [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
        },
      ];
      sendJson(
        res,
        400,
        geminiErrorBody(400, 'API key not valid. Please pass a valid API key.', details),
        request,
      );
      return;
    }
    if (!Array.isArray(request.body.contents) || request.body.contents.length === 0) {
      sendJson(
        res,
        400,
        geminiErrorBody(400, '* GenerateContentRequest.contents: contents is not specified'),
        request,
      );
      return;
    }
    const model = decodeURIComponent(match[1] ?? '');
    const refused = ruleBroken(model, request.body);
    if (refused) {
      sendJson(res, 400, geminiErrorBody(400, refused), request);
      return;
    }
    if (earlyFailure(script, res, request, (status, message) => geminiErrorBody(status, message))) return;
    if (match[2] === 'streamGenerateContent') {
      if (!match[3]?.includes('alt=sse')) {
        sendJson(res, 400, geminiErrorBody(400, 'this fake streams only with alt=sse'), request);
        return;
      }
      await streamAnswer(request, script, res, model);
    } else {
      answer(request, script, res, model);
    }
  });
}

function usageBody(script: FakeChatScript, final: boolean): Record<string, number> {
  const usage = usageOf(script);
  const body: Record<string, number> = { promptTokenCount: usage.prompt, totalTokenCount: usage.prompt };
  if (usage.cacheRead) body.cachedContentTokenCount = usage.cacheRead;
  if (final) {
    body.candidatesTokenCount = usage.completion;
    body.totalTokenCount = usage.prompt + usage.completion + (usage.reasoning ?? 0);
    if (usage.reasoning) body.thoughtsTokenCount = usage.reasoning;
  }
  return body;
}

function functionCallParts(script: FakeChatScript): Array<Record<string, unknown>> {
  return (script.toolCalls ?? []).map((call, i) => ({
    functionCall: { name: call.name, args: call.arguments },
    thoughtSignature: `fake-signature-${i + 1}`,
  }));
}

function answer(request: RecordedRequest, script: FakeChatScript, res: ServerResponse, model: string): void {
  const parts: Array<Record<string, unknown>> = [];
  if (script.reasoning) parts.push({ text: script.reasoning, thought: true });
  const text = textOf(request, script);
  if (text) parts.push({ text });
  parts.push(...functionCallParts(script));
  const config = (request.body.generationConfig ?? {}) as { candidateCount?: number };
  const response: Record<string, unknown> = {
    candidates: Array.from({ length: config.candidateCount ?? 1 }, (_, index) => ({
      content: { parts, role: 'model' },
      finishReason: FINISH_REASON[finishOf(script)],
      index,
    })),
    modelVersion: model,
    responseId: 'fake-response-0001',
  };
  if (script.failure?.kind !== 'no_usage') response.usageMetadata = usageBody(script, true);
  sendJson(res, 200, response, request);
}

async function streamAnswer(
  request: RecordedRequest,
  script: FakeChatScript,
  res: ServerResponse,
  model: string,
): Promise<void> {
  const withUsage = script.failure?.kind !== 'no_usage';
  const event = (parts: unknown[], final: boolean) =>
    `data: ${JSON.stringify({
      candidates: [
        {
          content: { parts, role: 'model' },
          ...(final && script.failure?.kind !== 'no_done'
            ? { finishReason: FINISH_REASON[finishOf(script)] }
            : {}),
          index: 0,
        },
      ],
      ...(withUsage ? { usageMetadata: usageBody(script, final) } : {}),
      modelVersion: model,
      responseId: 'fake-response-0001',
    })}\r\n\r\n`;
  const parts: unknown[][] = [];
  if (script.reasoning) parts.push([{ text: script.reasoning, thought: true }]);
  for (const piece of splitText(textOf(request, script), script.events ?? 10)) parts.push([{ text: piece }]);
  const calls = functionCallParts(script);
  if (calls.length || parts.length === 0) parts.push(calls);
  const events = parts.map((p, i) => event(p, i === parts.length - 1));
  const message = script.failure?.kind === 'error_event' ? script.failure.message : undefined;
  const errorEvent = `data: ${JSON.stringify(geminiErrorBody(500, message))}\r\n\r\n`;
  await playStream(res, request, script, events, errorEvent);
}

function textOf(request: RecordedRequest, script: FakeChatScript): string {
  return script.text ?? echoText('Gemini', imagesOf(request.body.contents));
}

/** The media parts of the request: fileData URIs as given, inlineData as `<mime type> inline`. */
function imagesOf(contents: unknown): string[] {
  const images: string[] = [];
  for (const content of Array.isArray(contents) ? (contents as Array<{ parts?: unknown }>) : []) {
    if (!Array.isArray(content.parts)) continue;
    for (const part of content.parts as Array<{
      inlineData?: { mimeType?: string };
      fileData?: { fileUri?: string };
    }>) {
      if (part.fileData?.fileUri) images.push(part.fileData.fileUri);
      else if (part.inlineData) images.push(describeInline(String(part.inlineData.mimeType)));
    }
  }
  return images;
}
