/**
 * `/mcp`: kasir as an MCP server over Streamable HTTP, with the official SDK in its stateless mode (a server and a
 * transport per HTTP request, no session: any instance answers any request). `tools/list` is the catalog
 * (tool-list.ts); `tools/call` is sold by the HTTP checkout (call.ts).
 */

import { createRoute, z } from '@hono/zod-openapi';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { Context } from 'hono';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { CHARGED_HEADER } from '../rails/prepaid.js';
import { type CallContext, callEntry } from './call.js';
import { JOB_META, type JobProgress } from './jobs.js';
import { RpcError } from './rpc-error.js';
import type { ToolList } from './tool-list.js';

export const MCP_PATH = '/mcp';

/** What the MCP server says of itself in `initialize`. */
export const SERVER_INFO = { name: 'kasir', title: 'kasir pay-per-call gateway', version: '0.1.0' };

const INSTRUCTIONS =
  'Every tool is a kasir catalog entry (a model, a paid tool, a recipe or a free lookup); its description states its price. ' +
  'Pay with a prepaid key (Authorization: Bearer on this HTTP connection), or per call from a wallet: an unpaid call ' +
  'answers the payment-required error (-32042) listing every rail at the quote; repeat the call with an MPP credential in ' +
  '_meta["org.paymentauth/credential"] or an x402 payment in _meta["x402/payment"]. Charged only on success. ' +
  '_meta["kasir/max-price"] (micro-USD) refuses a dearer call before payment; _meta["kasir/idempotency-key"] makes a retry safe.';

/** Headers of the MCP HTTP request that every tool call carries into the checkout. */
function forwardedHeaders(c: Context<AppEnv>): Record<string, string> {
  const out: Record<string, string> = {};
  const auth = c.req.header('authorization');
  if (auth && /^bearer\s/i.test(auth)) out.authorization = auth;
  for (const name of ['x-forwarded-for', 'user-agent', 'accept-language']) {
    const v = c.req.header(name);
    if (v) out[name] = v;
  }
  return out;
}

/**
 * The JSON Schema validator every server shares: the SDK makes (and compiles into) an Ajv instance per server
 * otherwise, the largest cost of a call.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** True when a message of the request carries a progress token. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !==
      undefined,
  );
}

/** One MCP server for one HTTP request (the SDK's stateless pattern). */
export function createMcpServer(tools: ToolList, ctx: CallContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, (req) => tools.page(req.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const entry = tools.entryOf(req.params.name);
    if (!entry) {
      throw new RpcError(ErrorCode.InvalidParams, `unknown tool "${req.params.name}": see tools/list`);
    }
    const token = req.params._meta?.progressToken;
    const report =
      token === undefined
        ? undefined
        : (p: JobProgress) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: p.progress,
                message: p.message,
                _meta: { [JOB_META]: p.jobId },
              },
            });
    return callEntry(entry, req.params.arguments ?? {}, req.params._meta, ctx, {
      report,
      signal: extra.signal,
    });
  });
  return server;
}

const mcpRoute = createRoute({
  method: 'post',
  path: MCP_PATH,
  tags: ['mcp'],
  summary: 'MCP server (Streamable HTTP): the catalog as paid tools',
  description:
    'JSON-RPC 2.0 over MCP Streamable HTTP, stateless (no session). `tools/list` lists every model, tool and recipe this ' +
    'server can sell, with its price; `tools/call` is sold by the same checkout as the HTTP routes. A prepaid key goes in ' +
    '`Authorization: Bearer`; an unpaid call answers the payment-required error (-32042) with every rail at the quote; ' +
    'MPP pays in `_meta["org.paymentauth/credential"]`, x402 in `_meta["x402/payment"]`.',
  request: {
    body: { required: true, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
  },
  responses: {
    200: {
      description: 'The JSON-RPC answer',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    202: { description: 'A notification or response was accepted' },
    406: { description: 'The Accept header does not list application/json and text/event-stream' },
  },
});

export function mountMcpRoutes(app: LaneApp, tools: ToolList): void {
  app.openAPIRegistry.registerPath(mcpRoute);
  app.all(MCP_PATH, async (c: Context<AppEnv>) => {
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      const raw = await exchangeOf(c).readBody(BODY_LIMITS.media);
      try {
        parsedBody = JSON.parse(raw.toString('utf8'));
      } catch {
        parsedBody = raw.toString('utf8');
      }
    }
    const incoming = c.env?.incoming;
    // What the key was charged for the calls of this request, stated on its answer as on every paid route's.
    let charged: number | undefined;
    const ctx: CallContext = {
      headers: forwardedHeaders(c),
      dispatch: async (path, init) => {
        const res = await app.fetch(new Request(new URL(path, c.req.url), init), { incoming });
        const stated = res.headers.get(CHARGED_HEADER);
        if (stated !== null) charged = (charged ?? 0) + Number(stated);
        return res;
      },
      jobCharged: (microUsd) => {
        charged = (charged ?? 0) + microUsd;
      },
    };
    const server = createMcpServer(tools, ctx);
    // A call asking for progress is answered as an event stream (its notifications, then its result); any other as
    // one JSON answer.
    const json = !asksForProgress(parsedBody);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    await server.connect(transport);
    const res = await transport.handleRequest(c.req.raw, { parsedBody });
    // Stateless: the server and its transport live for this one exchange and are dropped with it (closing them
    // would only abort handlers that have all answered). An event stream ends once its last response is sent.
    if (json && charged !== undefined) res.headers.set(CHARGED_HEADER, String(charged));
    return res;
  });
}
