/**
 * The `/mcp` route: reads the request, builds what its tool calls are sold through (the HTTP checkout, dispatched in
 * process) and hands it to the MCP server (server.ts). The SDK and the tool list load on the first request, so an
 * instance nobody reaches over MCP never loads them.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Catalog } from '../catalog/types.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { exchangeOf } from '../http/exchange.js';
import type { InProcessCall } from '../http/in-process.js';
import type { LaneApp } from '../http/lanes.js';
import type { OfferRegistry } from '../offers/registry.js';
import { CHARGED_HEADER } from '../rails/prepaid.js';
import { answerOf } from './answer.js';
import type { CallContext } from './call.js';

export const MCP_PATH = '/mcp';
/** The same server, answering an unpaid call as x402's MCP transport does (a tool result, not a JSON-RPC error). */
export const X402_MCP_PATH = '/x402/mcp';

/** What the tool list is made from: the catalog, how each entry runs here, and the model lists' version. */
export interface McpSources {
  catalog: Catalog;
  offers: OfferRegistry;
  availabilityVersion: () => number;
}

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

/** True when a message of the request carries a progress token. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !==
      undefined,
  );
}

const mcpRoute = (path: string, unpaid: string) =>
  createRoute({
    method: 'post',
    path,
    tags: ['mcp'],
    summary: 'MCP server (Streamable HTTP): the catalog as paid tools',
    description:
      'JSON-RPC 2.0 over MCP Streamable HTTP, stateless (no session). `tools/list` lists every model, tool, recipe and ' +
      'lookup this server offers, with its price; `tools/call` is sold by the same checkout as the HTTP routes. A prepaid ' +
      `key goes in \`Authorization: Bearer\`; ${unpaid}; MPP pays in \`_meta["org.paymentauth/credential"]\`, x402 in ` +
      '`_meta["x402/payment"]`.',
    request: {
      body: {
        required: true,
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
      },
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

/** How each MCP endpoint answers an unpaid call. */
const ENDPOINTS = [
  {
    path: MCP_PATH,
    unpaidAs: 'error',
    doc: 'an unpaid call answers the payment-required JSON-RPC error (-32042) with every rail at the quote',
  },
  {
    path: X402_MCP_PATH,
    unpaidAs: 'result',
    doc:
      "an unpaid call answers as x402's MCP transport: a tool result with `isError`, the PaymentRequired in the " +
      '`x402/error` wrapper of its text, every rail at the quote in `_meta["org.paymentauth/payment-required"]`',
  },
] as const;

export function mountMcpRoutes(app: LaneApp, sources: McpSources): void {
  let loaded: Promise<{
    answer: typeof import('./server.js').answerMcp;
    tools: import('./tool-list.js').ToolList;
  }>;
  const load = () => {
    loaded ??= Promise.all([import('./server.js'), import('./tool-list.js')]).then(([server, list]) => ({
      answer: server.answerMcp,
      tools: new list.ToolList(sources.catalog, sources.offers, sources.availabilityVersion),
    }));
    return loaded;
  };
  for (const { path, unpaidAs, doc } of ENDPOINTS) {
    app.openAPIRegistry.registerPath(mcpRoute(path, doc));
    app.all(path, (c: Context<AppEnv>) => serve(c, unpaidAs));
  }

  async function serve(c: Context<AppEnv>, unpaidAs: CallContext['unpaidAs']): Promise<Response> {
    const { answer, tools } = await load();
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
      unpaidAs,
      headers: forwardedHeaders(c),
      dispatch: async (path, init) => {
        // The body goes beside the request as bytes, and the answer comes back as sent (http/in-process.ts).
        const { body, ...rest } = init;
        const call: InProcessCall = typeof body === 'string' ? { body: Buffer.from(body) } : {};
        const res = await app.fetch(new Request(new URL(path, c.req.url), rest), {
          incoming,
          inProcess: call,
        });
        const stated = res.headers.get(CHARGED_HEADER);
        if (stated !== null) charged = (charged ?? 0) + Number(stated);
        return answerOf(res, call);
      },
      jobCharged: (microUsd) => {
        charged = (charged ?? 0) + microUsd;
      },
    };
    // A call asking for progress is answered as an event stream (its notifications, then its result); any other as
    // one JSON answer, which states the charge in its header.
    const json = !asksForProgress(parsedBody);
    const res = await answer(tools, ctx, c.req.raw, parsedBody, json);
    if (json && charged !== undefined) res.headers.set(CHARGED_HEADER, String(charged));
    return res;
  }
}
