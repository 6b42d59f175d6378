// kasir as an MCP server: the official SDK client over Streamable HTTP against a started kasir, listing the catalog as
// tools and calling them through the same checkout as HTTP — a key, MPP (mppx's McpClient on a local Tempo chain) and
// x402 (the stock EVM client on a local chain), with the charge exactly the quote and nothing charged on a refusal.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequirements } from '@x402/core/types';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { tempo } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kasirEnv, mppEnv } from '../../src/devnet/command.js';
import { type EvmDevnet, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { type BridgeOptions, openBridge } from '../../src/mcp/bridge.js';
import { X402_MCP_PATH } from '../../src/mcp/route.js';
import { toolNameOf } from '../../src/mcp/tool-list.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type FakeEscrow, startFakeEscrow } from '../fakes/channel-escrow.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { buildIfStale } from '../support/built.js';
import { CHAIN_ID, channelEnv, payerOn } from '../support/channel-payer.js';
import { evmPayer } from '../support/evm-payer.js';
import { listAllTools, mcpClient } from '../support/mcp-client.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { startToolFakes, type ToolFakes } from '../support/tool-fakes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHAT_MODEL = 'openai/gpt-4.1-mini';
const RATE_ARGS = { from: 'USD', to: 'IDR', amount: 10 };
const OTHER_RATE_ARGS = { from: 'USD', to: 'IDR', amount: 20 };
const VIDEO_MODEL = 'kwaivgi/kling-v2.5-turbo-pro';
const IMAGE_MODEL = 'black-forest-labs/flux-schnell@fal';
const VIDEO_ARGS = { prompt: 'waves on a reef', duration: '5' };

describe.each(DB_TARGETS)('MCP on %s', (db) => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let toolFakes: ToolFakes;
  let tempoChain: TempoDevnet;
  let evm: EvmDevnet;
  const clients: Client[] = [];

  const connect = async (key?: string, path?: string) => {
    const client = await mcpClient(server.url, key, path);
    clients.push(client);
    return client;
  };
  const quote = (id: string, args: Record<string, unknown>) => kasir.quote({ ...args, model: id });
  const walletQuote = (id: string, args: Record<string, unknown>) => {
    const { catalog } = kasir.deps;
    const entry = catalog.find(id);
    if (!entry) throw new Error(id);
    const checked = catalog.validate(entry, structuredClone(args));
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return catalog.quote(entry, checked.value, 'wallet').costMicroUsd;
  };
  /** The JSON-RPC error a call answers with. */
  const refusal = async (call: Promise<unknown>): Promise<McpError> => {
    try {
      await call;
    } catch (err) {
      if (err instanceof McpError) return err;
      throw err;
    }
    throw new Error('the call succeeded');
  };

  /** The x402 requirements on the devnet's chain in an unpaid call's payment-required error. */
  const x402Requirements = (unpaid: McpError): PaymentRequirements => {
    const accepts = (unpaid.data as { accepts: PaymentRequirements[] }).accepts;
    const requirements = accepts.find((a) => a.network === evm.network) ?? accepts[0];
    if (!requirements) throw new Error('no x402 requirements');
    return requirements;
  };
  /**
   * Pays `requirements` from the devnet's x402 payer and calls `name` with the payment in `_meta["x402/payment"]`:
   * the payment, the result, what the payer spent and its balance after.
   */
  const callPaidByX402 = async (
    client: Client,
    name: string,
    args: Record<string, unknown>,
    requirements: PaymentRequirements,
    options?: Parameters<Client['callTool']>[2],
  ) => {
    const balance = () => erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address);
    const before = await balance();
    const payment = await evmPayer(evm).pay(requirements);
    const paid = await client.callTool(
      { name, arguments: args, _meta: { 'x402/payment': payment } },
      undefined,
      options,
    );
    const after = await balance();
    return { payment, paid, spent: before - after, after };
  };

  beforeAll(async () => {
    toolFakes = await startToolFakes();
    tempoChain = await startTempoDevnet();
    evm = await startEvmDevnet();
    kasir = await startPaidKasir(db, { ...kasirEnv(evm), ...mppEnv(tempoChain), ...toolFakes.env });
    server = await startServer(kasir.app, '127.0.0.1', 0);
  }, 90_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await server?.stop(1000);
    await kasir?.stop();
    await evm?.stop();
    await tempoChain?.stop();
    await toolFakes?.close();
  });

  it('lists every available catalog entry, page by page, each input schema valid JSON Schema', async () => {
    const client = await connect();
    const { tools, pages } = await listAllTools(client);
    const available = kasir.deps.catalog.offered().filter((e) => kasir.deps.offers.available(e));
    expect(tools.map((t) => t.name).sort()).toEqual(available.map(toolNameOf).sort());
    expect(pages).toBeGreaterThan(1);
    const unavailable = kasir.deps.catalog.offered().filter((e) => !kasir.deps.offers.available(e));
    for (const e of unavailable) expect(tools.some((t) => t.name === toolNameOf(e))).toBe(false);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      const free = tool._meta?.['kasir/kind'] === 'lookup';
      // A paid entry declares the envelope of its answer (the SDK client checks every result against it); a free
      // lookup's answer has no envelope, and it only reads.
      if (free) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      else expect(tool.outputSchema, tool.name).toBeDefined();
      expect(() => ajv.compile(tool.outputSchema ?? {}), tool.name).not.toThrow();
      expect(tool.description).toMatch(/micro-USD|Free/);
      expect(tool.title).toBeTruthy();
    }
    const kinds = { model: 0, tool: 0, recipe: 0, lookup: 0 };
    for (const e of available) kinds[e.kind]++;
    expect(kinds.model).toBeGreaterThan(0);
    expect(kinds.tool).toBeGreaterThan(0);
    expect(kinds.lookup).toBe(6);
    const chat = tools.find((t) => t.name === toolNameOf(kasir.deps.catalog.find(CHAT_MODEL) as never));
    expect(chat?.inputSchema.properties).not.toHaveProperty('model');
    expect(chat?.inputSchema.required ?? []).not.toContain('model');
  });

  it('calls a free lookup with no payment: the same answer as its GET route, nothing charged', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const before = await kasir.balance(accountId);
    const anonymous = await connect();
    const answer = await anonymous.callTool({ name: 'tools__terbilang', arguments: { n: '1250000' } });
    expect(answer.isError).toBeFalsy();
    const overHttp = await (await fetch(`${server.url}/v1/tools/terbilang?n=1250000`)).json();
    expect(answer.structuredContent).toEqual(overHttp);
    const withKey = await (await connect(key)).callTool({ name: 'tools__terbilang', arguments: { n: '7' } });
    expect(withKey.isError).toBeFalsy();
    expect(await kasir.balance(accountId)).toEqual(before);
  });

  it('sells a paid tool and a chat model on a key: charged exactly the quote', async () => {
    const { key, accountId } = await kasir.fundedKey(5_000_000);
    const client = await connect(key);
    const before = await kasir.balance(accountId);
    const tool = await client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    expect(tool.isError).toBeFalsy();
    const toolQuote = quote('tools/exchange-rate', RATE_ARGS);
    expect(tool._meta?.['kasir/costMicroUsd']).toBe(toolQuote);
    expect(tool.structuredContent).toMatchObject({ tool: 'tools/exchange-rate', costMicroUsd: toolQuote });
    expect(tool._meta?.['kasir/receipt']).toBeTruthy();

    const chatArgs = { messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 64 };
    const chat = await client.callTool({ name: 'openai__gpt-4.1-mini', arguments: chatArgs });
    const chatQuote = quote(CHAT_MODEL, chatArgs);
    expect(chat.isError).toBeFalsy();
    expect((chat.content as Array<{ type: string; text?: string }>)[0]).toMatchObject({ type: 'text' });
    expect((chat.content as Array<{ text?: string }>)[0]?.text?.length).toBeGreaterThan(0);
    expect(chat._meta?.['kasir/costMicroUsd']).toBe(chatQuote);
    const after = await kasir.balance(accountId);
    expect(before.balance - after.balance).toBe(toolQuote + chatQuote);
    expect(after.held).toBe(0);
  });

  it('answers an image model with its re-hosted link and, for a small image, the image itself', async () => {
    kasir.fal.setScript({ fileBytes: 4096 });
    const { key, accountId } = await kasir.fundedKey(5_000_000);
    const client = await connect(key);
    const model = kasir.deps.catalog.find(IMAGE_MODEL);
    if (!model) throw new Error(IMAGE_MODEL);
    const args = { prompt: 'a lighthouse at dusk', num_images: 1 };
    const result = await client.callTool({ name: toolNameOf(model), arguments: args });
    expect(result.isError, JSON.stringify(result).slice(0, 300)).toBeFalsy();
    const content = result.content as Array<{ type: string; uri?: string; data?: string }>;
    const link = content.find((c) => c.type === 'resource_link');
    expect(link?.uri).toMatch(/\/v1\/media\//);
    const image = content.find((c) => c.type === 'image');
    expect(Buffer.from(image?.data ?? '', 'base64').length).toBe(4096);
    const price = quote(IMAGE_MODEL, args);
    expect(result._meta?.['kasir/costMicroUsd']).toBe(price);
    expect((await kasir.balance(accountId)).balance).toBe(5_000_000 - price);
  });

  it('refuses bad arguments as invalid params naming the field, charging nothing', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const client = await connect(key);
    const err = await refusal(
      client.callTool({
        name: 'openai__gpt-4.1-mini',
        arguments: { messages: 'not a list', max_tokens: -1 },
      }),
    );
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/messages|max_tokens/);
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000);
  });

  it('answers an unpaid call with the payment-required error listing every configured rail at the quote', async () => {
    const client = await connect();
    const err = await refusal(client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS }));
    expect(err.code).toBe(-32042);
    // The client prefixes the code once; the server sends the message bare.
    expect(err.message).toMatch(/^MCP error -32042: (?!MCP error)/);
    const data = err.data as {
      httpStatus: number;
      challenges: Array<{ method: string; intent: string }>;
      rails: Array<{ rail?: string; price_micro_usd: number }>;
      accepts: PaymentRequirements[];
      x402Version: number;
    };
    expect(data.httpStatus).toBe(402);
    expect(data.challenges.map((c) => `${c.method}/${c.intent}`)).toContain('tempo/charge');
    expect(data.x402Version).toBe(2);
    expect(data.accepts.length).toBeGreaterThan(0);
    const railIds = kasir.deps.rails.accepting('/v1/tools/exchange-rate').map((r) => r.id);
    expect(data.rails).toHaveLength(railIds.length);
    const prices = data.rails.map((r) => r.price_micro_usd).sort();
    const expected = kasir.deps.rails
      .accepting('/v1/tools/exchange-rate')
      .map((r) =>
        r.priceClass === 'wallet'
          ? walletQuote('tools/exchange-rate', RATE_ARGS)
          : quote('tools/exchange-rate', RATE_ARGS),
      )
      .sort();
    expect(prices).toEqual(expected);
  });

  it("answers an unpaid call on /x402/mcp as x402's MCP transport does; x402 and mppx's client both pay from that result", async () => {
    const client = await connect(undefined, X402_MCP_PATH);
    const unpaid = await client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    // x402's form: a tool result with isError, the PaymentRequired in the x402/error wrapper of the first text.
    expect(unpaid.isError).toBe(true);
    const text = (unpaid.content as Array<{ type: string; text: string }>)[0];
    expect(text?.type).toBe('text');
    const wrapped = JSON.parse(text?.text ?? '') as {
      'x402/error': {
        code: number;
        message: string;
        data: { x402Version: number; accepts: PaymentRequirements[] };
      };
    };
    expect(wrapped['x402/error']).toMatchObject({ code: 402, data: { x402Version: 2 } });
    const requirements =
      wrapped['x402/error'].data.accepts.find((a) => a.network === evm.network) ??
      wrapped['x402/error'].data.accepts[0];
    if (!requirements) throw new Error('no x402 requirements');
    // Every rail at the quote and the MPP challenges, where mppx's client reads them from a result.
    const required = unpaid._meta?.['org.paymentauth/payment-required'] as {
      challenges: Array<{ method: string; intent: string }>;
      rails: unknown[];
    };
    expect(required.challenges.map((c) => `${c.method}/${c.intent}`)).toContain('tempo/charge');
    expect(required.rails).toHaveLength(kasir.deps.rails.accepting('/v1/tools/exchange-rate').length);

    // Paid by x402 with the requirements read from that result.
    const { paid, spent } = await callPaidByX402(client, 'tools__exchange-rate', RATE_ARGS, requirements);
    expect(paid.isError).toBeFalsy();
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(spent).toBe(BigInt(requirements.amount));

    // Paid by mppx's McpClient, which finds the challenges in the result rather than in an error.
    const payer = await tempoChain.fundPayer(10_000_000n);
    const mpp = await connect(undefined, X402_MCP_PATH);
    McpClient.wrap(mpp, {
      methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: tempoChain.client })],
    });
    const held = await tempoChain.balanceOf(payer.address);
    const result = await mpp.callTool({ name: 'tools__exchange-rate', arguments: OTHER_RATE_ARGS });
    const price = walletQuote('tools/exchange-rate', OTHER_RATE_ARGS);
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['kasir/costMicroUsd']).toBe(price);
    expect(held - (await tempoChain.balanceOf(payer.address))).toBe(BigInt(price));
  });

  it('is paid over MPP with mppx McpClient: the payer pays exactly the quote; the credential sent again replays the answer, with other arguments it is refused', async () => {
    const payer = await tempoChain.fundPayer(10_000_000n);
    const client = await connect();
    let used: Record<string, unknown> | undefined;
    const original = client.callTool.bind(client);
    // Record the credential the wrapper sends, to replay it.
    Object.defineProperty(client, 'callTool', {
      configurable: true,
      writable: true,
      value: (params: { _meta?: Record<string, unknown> }, ...rest: unknown[]) => {
        if (params._meta?.['org.paymentauth/credential']) used = params._meta;
        return (original as (...a: unknown[]) => unknown)(params, ...rest);
      },
    });
    McpClient.wrap(client, {
      methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: tempoChain.client })],
    });
    const before = await tempoChain.balanceOf(payer.address);
    const result = await client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    const price = walletQuote('tools/exchange-rate', RATE_ARGS);
    expect(result._meta?.['kasir/costMicroUsd']).toBe(price);
    expect(result._meta?.['org.paymentauth/receipt']).toMatchObject({ method: 'tempo', status: 'success' });
    const after = await tempoChain.balanceOf(payer.address);
    expect(before - after).toBe(BigInt(price));

    expect(used).toBeDefined();
    const plain = await connect();
    // The same credential and arguments: the stored answer again (as over HTTP), nothing paid twice.
    const again = await plain.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS, _meta: used });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(result.structuredContent);
    // The same credential for another call is a replay, refused.
    const replay = await refusal(
      plain.callTool({ name: 'tools__exchange-rate', arguments: OTHER_RATE_ARGS, _meta: used }),
    );
    expect(replay.code).toBe(-32043);
    expect(await tempoChain.balanceOf(payer.address)).toBe(after);
  });

  it('is paid over x402 with the payment in _meta["x402/payment"] and the settlement in the result; sent again it replays the answer, for another call it is refused', async () => {
    const client = await connect();
    const requirements = x402Requirements(
      await refusal(client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS })),
    );
    const { payment, paid, spent, after } = await callPaidByX402(
      client,
      'tools__exchange-rate',
      RATE_ARGS,
      requirements,
    );
    expect(paid.isError).toBeFalsy();
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(spent).toBe(BigInt(requirements.amount));
    expect(paid._meta?.['kasir/costMicroUsd']).toBe(walletQuote('tools/exchange-rate', RATE_ARGS));
    // The same payment and arguments again: the stored answer, not a second settlement (as over HTTP).
    const again = await client.callTool({
      name: 'tools__exchange-rate',
      arguments: RATE_ARGS,
      _meta: { 'x402/payment': payment },
    });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(paid.structuredContent);
    // The same payment for another call is refused as the x402 MCP transport answers: a tool error with a fresh
    // PaymentRequired.
    const replay = await client.callTool({
      name: 'tools__exchange-rate',
      arguments: OTHER_RATE_ARGS,
      _meta: { 'x402/payment': payment },
    });
    expect(replay.isError).toBe(true);
    const text = (replay.content as Array<{ text: string }>)[0]?.text ?? '';
    const wrapped = JSON.parse(text) as { 'x402/error': { code: number; data: { accepts: unknown[] } } };
    expect(wrapped).toMatchObject({ 'x402/error': { code: 402, data: { x402Version: 2 } } });
    expect(wrapped['x402/error'].data.accepts.length).toBeGreaterThan(0);
    expect(await erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address)).toBe(after);
  });

  it('honours kasir/max-price and kasir/idempotency-key in _meta', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const client = await connect(key);
    const price = quote('tools/exchange-rate', RATE_ARGS);
    const above = await client.callTool({
      name: 'tools__exchange-rate',
      arguments: RATE_ARGS,
      _meta: { 'kasir/max-price': price - 1 },
    });
    expect(above.isError).toBe(true);
    expect(above._meta?.['kasir/error']).toMatchObject({ code: 'price_above_max' });
    const meta = { 'kasir/idempotency-key': 'mcp-idem-1' };
    const first = await client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS, _meta: meta });
    const again = await client.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS, _meta: meta });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000 - price);
  });

  it('follows a video job with progress; a caller that lost it resumes by job id, paying once', async () => {
    kasir.fal.setScript({ polls: 20 });
    const { key, accountId } = await kasir.fundedKey(50_000_000);
    const video = kasir.deps.catalog.find(VIDEO_MODEL);
    if (!video) throw new Error(VIDEO_MODEL);
    const name = toolNameOf(video);
    const price = quote(VIDEO_MODEL, VIDEO_ARGS);
    // The first caller sees the job start, then goes away.
    const client = await connect(key);
    const gone = new AbortController();
    let jobId: unknown;
    const first = client.callTool({ name, arguments: VIDEO_ARGS }, undefined, {
      signal: gone.signal,
      onprogress: (p) => {
        jobId ??= (p as { _meta?: Record<string, unknown> })._meta?.['kasir/job'];
        gone.abort();
      },
    });
    await expect(first).rejects.toThrow();
    expect(jobId).toMatch(/^job_[0-9a-f]{32}$/);
    // It comes back on a new connection, naming the job: the result, and nothing charged again.
    const again = await connect(key);
    const progress: number[] = [];
    const result = await again.callTool(
      { name, arguments: VIDEO_ARGS, _meta: { 'kasir/job': jobId } },
      undefined,
      {
        onprogress: (p) => progress.push(p.progress),
        timeout: 30_000,
      },
    );
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['kasir/costMicroUsd']).toBe(price);
    expect(result._meta?.['kasir/job']).toBe(jobId);
    expect((result.content as Array<{ type: string }>).some((c) => c.type === 'resource_link')).toBe(true);
    expect(await kasir.balance(accountId)).toEqual({ balance: 50_000_000 - price, held: 0 });
  });

  it('reports a wallet-paid video call running; the same payment sent again answers its result, paid once', async () => {
    kasir.fal.setScript({ polls: 5 });
    const video = kasir.deps.catalog.find(VIDEO_MODEL);
    if (!video) throw new Error(VIDEO_MODEL);
    const name = toolNameOf(video);
    const client = await connect();
    const requirements = x402Requirements(await refusal(client.callTool({ name, arguments: VIDEO_ARGS })));
    // x402 settles on the answer, so the call runs within its request (no job): it says it is running.
    const progress: Array<{ progress: number; message?: string }> = [];
    const { payment, paid, spent, after } = await callPaidByX402(client, name, VIDEO_ARGS, requirements, {
      onprogress: (p) => progress.push(p),
      timeout: 30_000,
    });
    expect(paid.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]?.message).toMatch(/running/);
    expect((paid.content as Array<{ type: string }>).some((c) => c.type === 'resource_link')).toBe(true);
    expect(spent).toBe(BigInt(requirements.amount));
    // A caller that lost that answer sends the same payment again: the same result, nothing paid again.
    const again = await (await connect()).callTool({
      name,
      arguments: VIDEO_ARGS,
      _meta: { 'x402/payment': payment },
    });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toEqual(paid.structuredContent);
    expect(await erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address)).toBe(after);
  });

  it('runs a video call without a progress token as a job too, and states its charge on the answer', async () => {
    kasir.fal.setScript({ polls: 3 });
    const { key, accountId } = await kasir.fundedKey(50_000_000);
    const price = quote(VIDEO_MODEL, VIDEO_ARGS);
    const video = kasir.deps.catalog.find(VIDEO_MODEL);
    if (!video) throw new Error(VIDEO_MODEL);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: toolNameOf(video), arguments: VIDEO_ARGS },
      }),
    });
    const answer = (await res.json()) as { result?: { _meta?: Record<string, unknown> } };
    expect(answer.result?._meta?.['kasir/job']).toMatch(/^job_/);
    expect(answer.result?._meta?.['kasir/costMicroUsd']).toBe(price);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe(String(price));
    expect(await kasir.balance(accountId)).toEqual({ balance: 50_000_000 - price, held: 0 });
  });

  /** An agent's client of `kasir mcp` (the bridge), over a linked pair of transports standing for its stdio. */
  async function bridged(options: Omit<BridgeOptions, 'url'>): Promise<Client> {
    const [agentSide, bridgeSide] = InMemoryTransport.createLinkedPair();
    await openBridge({ url: server.url, ...options }, bridgeSide);
    const agent = new Client({ name: 'desktop-agent', version: '1.0.0' });
    await agent.connect(agentSide);
    clients.push(agent);
    return agent;
  }

  it('bridges a video call: the job progress reaches the agent, and the result is charged once', async () => {
    kasir.fal.setScript({ polls: 6 });
    const { key, accountId } = await kasir.fundedKey(50_000_000);
    const video = kasir.deps.catalog.find(VIDEO_MODEL);
    if (!video) throw new Error(VIDEO_MODEL);
    const price = quote(VIDEO_MODEL, VIDEO_ARGS);
    const agent = await bridged({ key, caps: { perCallMicroUsd: price } });
    const jobs: unknown[] = [];
    const result = await agent.callTool({ name: toolNameOf(video), arguments: VIDEO_ARGS }, undefined, {
      onprogress: (p) => jobs.push((p as { _meta?: Record<string, unknown> })._meta?.['kasir/job']),
      timeout: 30_000,
    });
    expect(result.isError).toBeFalsy();
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs[0]).toMatch(/^job_[0-9a-f]{32}$/);
    expect(result._meta?.['kasir/job']).toBe(jobs[0]);
    expect(result._meta?.['kasir/costMicroUsd']).toBe(price);
    expect(await kasir.balance(accountId)).toEqual({ balance: 50_000_000 - price, held: 0 });
  });

  it('bridges stdio to /mcp with a key: lists the tools, pays a call, refuses one above the cap before paying', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const price = quote('tools/exchange-rate', RATE_ARGS);
    const agent = await bridged({ key, caps: { perCallMicroUsd: price, sessionMicroUsd: price * 2 } });
    const { tools } = await listAllTools(agent);
    expect(tools.length).toBe(
      kasir.deps.catalog.offered().filter((e) => kasir.deps.offers.available(e)).length,
    );
    const paid = await agent.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    expect(paid._meta?.['kasir/costMicroUsd']).toBe(price);
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000 - price);
    // A chat call dearer than the per-call cap is refused before any payment.
    const chat = await agent.callTool({
      name: 'openai__gpt-4.1-mini',
      arguments: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4000 },
    });
    expect(chat.isError).toBe(true);
    expect(JSON.stringify(chat.content)).toMatch(/per-call cap/);
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000 - price);
  });

  it('bridges with a local wallet paying MPP, within its session cap', async () => {
    const payer = await tempoChain.fundPayer(10_000_000n);
    const price = walletQuote('tools/exchange-rate', RATE_ARGS);
    const agent = await bridged({
      wallet: { privateKey: payer.privateKey, rpcUrl: tempoChain.rpcUrl },
      caps: { sessionMicroUsd: price + price / 2 },
    });
    const before = await tempoChain.balanceOf(payer.address);
    const paid = await agent.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    expect(paid._meta?.['org.paymentauth/receipt']).toMatchObject({ status: 'success' });
    const after = await tempoChain.balanceOf(payer.address);
    expect(before - after).toBe(BigInt(price));
    // The second would pass the session cap: refused, nothing paid.
    const second = await agent.callTool({
      name: 'tools__exchange-rate',
      arguments: { ...RATE_ARGS, amount: 11 },
    });
    expect(second.isError).toBe(true);
    expect(JSON.stringify(second.content)).toMatch(/session/);
    expect(await tempoChain.balanceOf(payer.address)).toBe(after);
  });

  it('bridges with a local wallet paying x402, refusing a call above its per-call cap before signing', async () => {
    const price = walletQuote('tools/exchange-rate', RATE_ARGS);
    const agent = await bridged({
      wallet: { privateKey: evm.payer.privateKey, rpcUrl: evm.rpcUrl, rail: 'x402' },
      caps: { perCallMicroUsd: price },
    });
    const before = await erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address);
    const paid = await agent.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    expect(paid.isError, JSON.stringify(paid).slice(0, 300)).toBeFalsy();
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    const after = await erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address);
    expect(before - after).toBe(BigInt(price));
    const dear = await agent.callTool({
      name: 'openai__gpt-4.1-mini',
      arguments: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4000 },
    });
    expect(dear.isError).toBe(true);
    expect(JSON.stringify(dear.content)).toMatch(/per-call cap/);
    expect(await erc20BalanceOf(evm.rpcUrl, evm.asset, evm.payer.address)).toBe(after);
  });

  it('npx kasir mcp over real stdio: a paid call, and one above its per-call cap refused before paying', async () => {
    // bin/kasir.js builds dist/ when it is stale: done here first, so the build does not run inside the client's
    // connect timeout.
    buildIfStale();
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const price = quote('tools/exchange-rate', RATE_ARGS);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin/kasir.js'), 'mcp', '--url', server.url, '--max-per-call', String(price)],
      cwd: ROOT,
      env: { ...getDefaultEnvironment(), KASIR_KEY: key },
      stderr: 'ignore',
    });
    const agent = new Client({ name: 'desktop-agent', version: '1.0.0' });
    await agent.connect(transport);
    clients.push(agent);
    const paid = await agent.callTool({ name: 'tools__exchange-rate', arguments: RATE_ARGS });
    expect(paid._meta?.['kasir/costMicroUsd']).toBe(price);
    const dear = await agent.callTool({
      name: 'openai__gpt-4.1-mini',
      arguments: { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4000 },
    });
    expect(dear.isError).toBe(true);
    expect(JSON.stringify(dear.content)).toMatch(/per-call cap/);
    expect((await kasir.balance(accountId)).balance).toBe(1_000_000 - price);
  }, 300_000);
});

describe('MCP paid from a payment channel', () => {
  let escrow: FakeEscrow;
  let kasir: PaidKasir;
  let server: RunningServer;
  let client: Client | undefined;

  beforeAll(async () => {
    escrow = startFakeEscrow(CHAIN_ID);
    kasir = await startPaidKasir('sqlite', channelEnv, undefined, { channelBackend: escrow });
    server = await startServer(kasir.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await server?.stop(1000);
    await kasir?.stop();
  });

  it('takes a voucher in _meta["kasir/voucher"]: the channel is charged the quote, a stale voucher is refused', async () => {
    const payer = payerOn(escrow, 2_000_000n);
    expect((await postJson(kasir, '/v1/channels', { descriptor: payer.descriptor })).status).toBeLessThan(
      300,
    );
    client = await mcpClient(server.url);
    const args = { messages: [{ role: 'user', content: 'on a channel' }], max_tokens: 64 };
    const q = kasir.quote({ ...args, model: CHAT_MODEL });
    const paid = await client.callTool({
      name: 'openai__gpt-4.1-mini',
      arguments: args,
      _meta: { 'kasir/voucher': await payer.voucher(q) },
    });
    expect(paid.isError, JSON.stringify(paid).slice(0, 300)).toBeFalsy();
    expect(paid._meta?.['kasir/costMicroUsd']).toBe(q);
    expect(paid._meta?.['kasir/receipt']).toMatchObject({ rail: 'channel' });
    const view = (await (await kasir.app.request(`/v1/channels/${payer.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(view).toMatchObject({ spent: q, in_flight: 0 });
    // The same voucher again authorizes nothing more: refused, the channel's spend unchanged.
    let refused: unknown;
    try {
      const again = await client.callTool({
        name: 'openai__gpt-4.1-mini',
        arguments: args,
        _meta: { 'kasir/voucher': await payer.voucher(q) },
      });
      refused = again.isError ? again : undefined;
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeDefined();
    const after = (await (await kasir.app.request(`/v1/channels/${payer.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(after).toMatchObject({ spent: q, in_flight: 0 });
  });
});
