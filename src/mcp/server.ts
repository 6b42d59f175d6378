/**
 * `/mcp`: kasir as an MCP server over Streamable HTTP, with the official SDK in its stateless mode (a server and a
 * transport per HTTP request, no session: any instance answers any request). `tools/list` is the catalog
 * (tool-list.ts); `tools/call` is sold by the HTTP checkout (call.ts).
 */

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { type CallContext, callEntry } from './call.js';
import { JOB_META, type JobProgress } from './jobs.js';
import { RpcError } from './rpc-error.js';
import type { ToolList } from './tool-list.js';

/** What the MCP server says of itself in `initialize`. */
export const SERVER_INFO = { name: 'kasir', title: 'kasir pay-per-call gateway', version: '0.1.0' };

const INSTRUCTIONS =
  'Every tool is a kasir catalog entry (a model, a paid tool, a recipe or a free lookup); its description states its price. ' +
  'Pay with a prepaid key (Authorization: Bearer on this HTTP connection), or per call from a wallet: an unpaid call ' +
  'answers the payment-required error (-32042) listing every rail at the quote; repeat the call with an MPP credential in ' +
  '_meta["org.paymentauth/credential"] or an x402 payment in _meta["x402/payment"]. Charged only on success. ' +
  '_meta["kasir/max-price"] (micro-USD) refuses a dearer call before payment; _meta["kasir/idempotency-key"] makes a retry safe.';

/**
 * The JSON Schema validator every server shares: the SDK makes (and compiles into) an Ajv instance per server
 * otherwise, the largest cost of a call.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

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
                ...(p.jobId === undefined ? {} : { _meta: { [JOB_META]: p.jobId } }),
              },
            });
    return callEntry(entry, req.params.arguments ?? {}, req.params._meta, ctx, {
      report,
      signal: extra.signal,
    });
  });
  return server;
}

/**
 * Answers one MCP HTTP request with a server and transport made for it (stateless): as one JSON answer, or (`json`
 * false) as an event stream of a call's progress notifications, then its result.
 */
export async function answerMcp(
  tools: ToolList,
  ctx: CallContext,
  request: Request,
  parsedBody: unknown,
  json: boolean,
) {
  const server = createMcpServer(tools, ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: json,
  });
  await server.connect(transport);
  // The server and its transport live for this one exchange and are dropped with it (closing them would only abort
  // handlers that have all answered). An event stream ends once its last response is sent.
  return transport.handleRequest(request, { parsedBody });
}
