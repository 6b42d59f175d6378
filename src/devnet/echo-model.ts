/**
 * The devnet's local chat model: a small OpenAI-compatible server (GET /v1/models, POST /v1/chat/completions, plain
 * or streamed) serving `kasir-devnet-echo`, which answers deterministically — the same messages always give the same
 * answer — by echoing the last user message. Usage counts are real: tokens counted with the o200k tokenizer over the
 * messages' text and the answer. It lets a first paid call run offline through kasir's self-hosted model path.
 * Hand-written on node:http: a few dozen lines of the chat wire format, no server library needed for that.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, encode } from 'gpt-tokenizer';

export const ECHO_MODEL = 'kasir-devnet-echo';
/** When the model was "released": fixed, so /v1/models is the same on every run. */
const CREATED = 1_767_225_600;
const MAX_BODY = 1024 * 1024;

export interface EchoModelServer {
  /** The OpenAI-compatible root, ending in /v1 (what SELF_HOSTED_BASE_URL / OLLAMA_BASE_URL take). */
  baseUrl: string;
  stop(): Promise<void>;
}

type Message = { role?: unknown; content?: unknown };

/** The text of a message's content: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : ''))
    .join('');
}

/** The answer to `messages`, cut to `maxTokens` tokens; and the usage of the call. */
export function echoAnswer(messages: Message[], maxTokens: number | undefined) {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const full = `Echo: ${textOf(lastUser?.content).trim() || '(nothing)'}`;
  let tokens = encode(full);
  const cut = maxTokens !== undefined && tokens.length > maxTokens;
  if (cut) tokens = tokens.slice(0, maxTokens);
  const prompt = messages.reduce((n, m) => n + encode(`${String(m.role)}\n${textOf(m.content)}`).length, 0);
  return {
    text: cut ? decode(tokens) : full,
    finishReason: cut ? 'length' : 'stop',
    usage: { prompt_tokens: prompt, completion_tokens: tokens.length, total_tokens: prompt + tokens.length },
    tokens,
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, message: string, param: string | null, code: string) {
  send(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function complete(res: ServerResponse, body: Record<string, unknown>) {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return fail(res, 400, 'messages must be a non-empty array', 'messages', 'invalid_value');
  if (body.model !== ECHO_MODEL)
    return fail(res, 404, `The model '${String(body.model)}' does not exist`, 'model', 'model_not_found');
  const limit = body.max_completion_tokens ?? body.max_tokens;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1))
    return fail(res, 400, 'max_tokens must be a positive integer', 'max_tokens', 'invalid_value');
  const answer = echoAnswer(messages as Message[], limit as number | undefined);
  const id = `chatcmpl-${createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 24)}`;
  const created = Math.floor(Date.now() / 1000);
  const head = { id, created, model: ECHO_MODEL, system_fingerprint: 'kasir-devnet' };
  if (body.stream !== true) {
    return send(res, 200, {
      ...head,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: answer.text },
          finish_reason: answer.finishReason,
        },
      ],
      usage: answer.usage,
    });
  }
  const withUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const chunk = (choices: unknown[], usage: unknown = withUsage ? null : undefined) =>
    `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, usage })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
  // One chunk per token, as a model streams; the text of the chunks adds up to the answer.
  let sent = '';
  for (let i = 0; i < answer.tokens.length; i++) {
    const upTo = i === answer.tokens.length - 1 ? answer.text : decode(answer.tokens.slice(0, i + 1));
    const piece = upTo.slice(sent.length);
    if (!piece) continue;
    sent = upTo;
    res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  res.write(chunk([{ index: 0, delta: {}, finish_reason: answer.finishReason }]));
  if (withUsage) res.write(chunk([], answer.usage));
  res.end('data: [DONE]\n\n');
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://devnet').pathname.replace(/\/+$/, '');
  if (req.method === 'GET' && path === '/v1/models') {
    return send(res, 200, {
      object: 'list',
      data: [{ id: ECHO_MODEL, object: 'model', created: CREATED, owned_by: 'kasir-devnet' }],
    });
  }
  if (req.method === 'GET' && path === `/v1/models/${ECHO_MODEL}`) {
    return send(res, 200, { id: ECHO_MODEL, object: 'model', created: CREATED, owned_by: 'kasir-devnet' });
  }
  if (path === '/v1/chat/completions') {
    if (req.method !== 'POST') return fail(res, 405, 'use POST', null, 'method_not_allowed');
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return fail(res, 400, 'the body is not JSON', null, 'invalid_json');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return fail(res, 400, 'the body must be a JSON object', null, 'invalid_json');
    return complete(res, body as Record<string, unknown>);
  }
  return fail(res, 404, `no route ${req.method} ${path}`, null, 'not_found');
}

/** Starts the echo model on 127.0.0.1 (a free port unless `port` is given). */
export async function startEchoModel(port = 0): Promise<EchoModelServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) fail(res, 500, 'the echo model failed', null, 'server_error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${bound}/v1`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
