/**
 * `kasir mcp`: a stdio MCP server for desktop agents that relays to a kasir's /mcp over Streamable HTTP, paying with
 * a prepaid key (sent as `Authorization: Bearer`) or a local wallet (an MPP Tempo charge, signed here by mppx's MCP
 * client, or an x402 payment), within the per-call and per-session caps its user sets: every call carries the most it may cost as
 * `kasir/max-price`, and a wallet refuses to sign a challenge above what is left, so nothing above a cap is paid.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { tempo } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import { createClient, defineChain, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoMainnet } from 'viem/chains';
import { META } from './payment.js';
import { RpcError } from './rpc-error.js';
import { SERVER_INFO } from './server.js';
import { type CapSettings, SpendingCaps } from './spending.js';
import { createX402Payer, x402Price, x402Required } from './x402-payer.js';

export interface BridgeOptions {
  /** The kasir's base URL. */
  url: string;
  /** A prepaid key. */
  key?: string;
  /**
   * A local wallet paying per call on `rail`: MPP Tempo charges (the default) or x402 `exact` on an EVM chain;
   * `rpcUrl` is the chain's RPC (for MPP, else viem's default for Tempo).
   */
  wallet?: { privateKey: Hex; rpcUrl?: string; rail?: 'mpp' | 'x402' };
  caps: CapSettings;
  /** The fetch the HTTP transport uses (tests). */
  fetch?: FetchLike;
}

/** An MCP error relayed as it came, without the SDK's "MCP error <code>: " prefixes. */
function relayed(err: McpError): RpcError {
  return new RpcError(err.code, err.message.replace(/^(MCP error -?\d+: )+/, ''), err.data);
}

const refused = (message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `kasir mcp refused the call: ${message}` }],
});

/** Connects to the kasir and serves its tools on `downstream`, until either side closes. */
export async function openBridge(options: BridgeOptions, downstream: Transport): Promise<Server> {
  const caps = new SpendingCaps(options.caps);
  const upstream = new Client({ name: 'kasir-mcp-bridge', version: SERVER_INFO.version });
  await upstream.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', options.url), {
      requestInit: options.key ? { headers: { authorization: `Bearer ${options.key}` } } : undefined,
      fetch: options.fetch,
    }),
  );
  // Why the wallet declined the last challenge (the amount is in the stablecoin's 6-decimal base units: micro-USD).
  let declined: string | undefined;
  const x402 =
    options.wallet?.rail === 'x402'
      ? createX402Payer(options.wallet.privateKey, options.wallet.rpcUrl)
      : undefined;
  if (options.wallet && !x402) {
    const { privateKey, rpcUrl } = options.wallet;
    McpClient.wrap(upstream, {
      methods: [
        tempo({
          account: privateKeyToAccount(privateKey),
          ...(rpcUrl
            ? {
                getClient: ({ chainId }: { chainId?: number }) =>
                  createClient({
                    chain: defineChain({
                      ...tempoMainnet,
                      id: chainId ?? tempoMainnet.id,
                      rpcUrls: { default: { http: [rpcUrl] } },
                    }),
                    transport: http(rpcUrl),
                  }),
              }
            : {}),
        }),
      ],
      onPaymentRequired: (challenge) => {
        const amount = Number((challenge.request as { amount?: unknown }).amount);
        declined = Number.isFinite(amount) ? caps.refusal(amount) : 'the challenge states no amount';
        return declined === undefined;
      },
    });
  }

  const server = new Server(
    { ...SERVER_INFO, name: 'kasir-mcp-bridge' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    try {
      return await upstream.listTools(req.params?.cursor ? { cursor: req.params.cursor } : {});
    } catch (err) {
      throw err instanceof McpError ? relayed(err) : err;
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const limit = caps.limit();
    // A long call (a video, a recipe) runs as a kasir job reporting progress after each status read: asked for
    // always, it keeps the upstream request alive past the client's timeout; relayed when the agent asked for it.
    const token = req.params._meta?.progressToken;
    const onprogress = (p: Progress) => {
      if (token === undefined) return;
      void extra.sendNotification({
        method: 'notifications/progress',
        params: { ...p, progressToken: token },
      });
    };
    if (limit === 0) return refused(caps.refusal(1) ?? 'the spending cap is reached');
    const meta = { ...req.params._meta, ...(limit !== undefined ? { [META.maxPrice]: limit } : {}) };
    declined = undefined;
    const call = async (more: Record<string, unknown> = {}) =>
      (await upstream.callTool(
        { name: req.params.name, arguments: req.params.arguments ?? {}, _meta: { ...meta, ...more } },
        undefined,
        { onprogress, resetTimeoutOnProgress: true },
      )) as CallToolResult;
    let result: CallToolResult;
    try {
      try {
        result = await call();
      } catch (err) {
        const required = x402 && err instanceof McpError ? x402Required(err.data) : undefined;
        if (!x402 || !required) throw err;
        // Paid from the wallet over x402: within the caps, checked at kasir's stated price before signing.
        const price = x402Price((err as McpError).data) ?? Number(required.accepts[0]?.amount);
        const refusal = caps.refusal(price);
        if (refusal) return refused(refusal);
        result = await call({ [META.x402Payment]: await x402.pay(required) });
      }
    } catch (err) {
      if (declined) return refused(declined);
      throw err instanceof McpError ? relayed(err) : err;
    }
    const error = result._meta?.['kasir/error'] as { code?: string; details?: unknown } | undefined;
    if (result.isError && error?.code === 'price_above_max') {
      const price = (error.details as { price_micro_usd?: number } | undefined)?.price_micro_usd;
      return refused(caps.refusal(price ?? Number.MAX_SAFE_INTEGER) ?? 'above the spending cap');
    }
    const cost = result._meta?.['kasir/costMicroUsd'];
    if (typeof cost === 'number') caps.record(cost);
    return result;
  });
  server.onclose = () => void upstream.close();
  await server.connect(downstream);
  return server;
}

const USAGE = `usage: kasir mcp --url <kasir base URL> [--key <key> | --wallet <file>] [options]

  --url URL            the kasir to relay to (its /mcp)
  --key KEY            pay with a prepaid key (or set KASIR_KEY)
  --wallet FILE        pay per call from a local wallet: FILE holds a hex private key (or set
                       KASIR_WALLET_PRIVATE_KEY)
  --pay mpp|x402       how the wallet pays: MPP Tempo charges (default) or x402 on an EVM chain
  --rpc-url URL        the wallet's chain RPC
  --max-per-call N     refuse any call costing more than N micro-USD
  --max-session N      refuse calls once this session has spent N micro-USD

Serves MCP on stdin/stdout for a desktop agent; messages go to stderr.`;

function micro(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new Error(`${name} must be a whole number of micro-USD`);
  return Number(value);
}

/** The bridge's options from its command line and environment. */
export function bridgeOptions(argv: string[], env: NodeJS.ProcessEnv): BridgeOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      wallet: { type: 'string' },
      'rpc-url': { type: 'string' },
      pay: { type: 'string' },
      'max-per-call': { type: 'string' },
      'max-session': { type: 'string' },
    },
    strict: true,
  });
  if (!values.url) throw new Error('--url is required');
  const key = values.key ?? env.KASIR_KEY;
  const walletKey = values.wallet ? readFileSync(values.wallet, 'utf8').trim() : env.KASIR_WALLET_PRIVATE_KEY;
  if (key && walletKey) throw new Error('pay with --key or --wallet, not both');
  if (walletKey && !/^0x[0-9a-fA-F]{64}$/.test(walletKey))
    throw new Error('the wallet must hold a 0x-prefixed 32-byte hex private key');
  const rail = values.pay ?? 'mpp';
  if (rail !== 'mpp' && rail !== 'x402') throw new Error('--pay must be mpp or x402');
  return {
    url: values.url,
    ...(key ? { key } : {}),
    ...(walletKey ? { wallet: { privateKey: walletKey as Hex, rpcUrl: values['rpc-url'], rail } } : {}),
    caps: {
      perCallMicroUsd: micro(values['max-per-call'], '--max-per-call'),
      sessionMicroUsd: micro(values['max-session'], '--max-session'),
    },
  };
}

/** `kasir mcp …`: serves the bridge on stdio until the agent closes it. */
export async function runBridge(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.error(USAGE);
    return 0;
  }
  let options: BridgeOptions;
  try {
    options = bridgeOptions(argv, process.env);
  } catch (err) {
    console.error(`kasir mcp: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const server = await openBridge(options, new StdioServerTransport());
  await new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  return 0;
}
