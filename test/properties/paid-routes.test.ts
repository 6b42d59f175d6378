// Every paid route under arbitrary input (fast-check): arbitrary bodies and headers, and byte mutations of valid
// requests, never get a 5xx or hang, and charge nothing unless answered 200; a 200 charges exactly its quote.
// Valid requests pay with a funded key, with x402 on a local EVM chain (wallet routes), or with an MPP Tempo charge
// on a local Tempo chain (the real mppx client). Then the same routes, with fewer runs, on the default install (no
// wallet rail) and on one rail at a time, paid with a funded key.

import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import fc from 'fast-check';
import { Mppx, tempo } from 'mppx/client';
import { request } from 'undici';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kasirEnv, mppEnv } from '../../src/devnet/command.js';
import { type EvmDevnet, erc20BalanceOf, startEvmDevnet } from '../../src/devnet/evm.js';
import { startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { DB_TARGETS } from '../support/app.js';
import { evmPayer } from '../support/evm-payer.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { PAID_ROUTES, type PaidRouteCase, RAIL_CONFIGS, walletRouteOff } from '../support/paid-routes.js';
import { startToolFakes, type ToolFakes } from '../support/tool-fakes.js';

const FUNDS = 1_000_000_000;
/** The headers every request to `path` carries (an MCP client's Accept on /mcp). */
const routeHeaders = (path: string) => PAID_ROUTES.find((r) => r.path === path)?.headers ?? {};
/**
 * An answer slower than this is a hang. In CI four times as long, as vitest.config.ts gives every test there: this
 * file shares the machine with the S3 gateway, the chains and two other test files, and a PostgreSQL-backed kasir
 * there has answered calls in over 10 s while PostgreSQL was slow for everyone (refused bodies included), which is
 * the machine, not a hang.
 */
const ANSWER_WITHIN_MS = process.env.CI ? 40_000 : 10_000;
/** Stands for the funded key in generated headers (the key exists only once the suite has started). */
const KEY = '<funded key>';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

const headersArb = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
    ),
    authorization: fc.oneof(
      fc.constant(`Bearer ${KEY}`),
      printable.map((v) => `Bearer ${v}`),
      printable.map((v) => `Payment ${v}`),
      printable.map((v) => `Payment ${Buffer.from(v).toString('base64url')}`),
      printable,
    ),
    'x-max-price': fc.oneof(fc.nat().map(String), printable),
    'idempotency-key': printable,
    'payment-signature': fc.oneof(
      printable,
      printable.map((v) => Buffer.from(v).toString('base64')),
    ),
  },
  { requiredKeys: [] },
);

const anyBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })).map((v) => JSON.stringify(v)),
);

type Mutation = { at: number; kind: 'flip' | 'insert' | 'delete'; byte: number };
const mutationsArb = fc.array(
  fc.record({
    at: fc.nat(),
    kind: fc.constantFrom<Mutation['kind']>('flip', 'insert', 'delete'),
    byte: fc.integer({ min: 0, max: 255 }),
  }),
  { minLength: 1, maxLength: 4 },
);

function mutate(bytes: Buffer, mutations: Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % out.length;
    if (m.kind === 'flip') out[at] = m.byte;
    else if (m.kind === 'insert')
      out = Buffer.concat([out.subarray(0, at), Buffer.from([m.byte]), out.subarray(at)]);
    else out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1)]);
  }
  return out;
}

/** The JSON-RPC answer of an MCP request, or undefined for any other answer. */
function rpcAnswer(
  answer: Answer,
): { result?: Record<string, unknown>; error?: { code: number } } | undefined {
  if (!String(answer.headers['content-type']).startsWith('application/json')) return undefined;
  try {
    const body = JSON.parse(answer.text) as { jsonrpc?: unknown };
    return body.jsonrpc === '2.0' ? (body as ReturnType<typeof rpcAnswer>) : undefined;
  } catch {
    return undefined;
  }
}

/** True for an answer that sold the call: a 200, and over MCP a result stating its cost (not an error). */
function sold(answer: Answer): boolean {
  if (answer.status !== 200) return false;
  const rpc = rpcAnswer(answer);
  return (
    rpc === undefined ||
    (rpc.result?._meta as Record<string, unknown> | undefined)?.['kasir/costMicroUsd'] !== undefined
  );
}

/** The cost a 200 states: the JSON body's costMicroUsd (an MCP result's `_meta`), or the closing chunk's on a stream. */
function statedCost(answer: Answer): number | undefined {
  const rpc = rpcAnswer(answer);
  if (rpc)
    return (rpc.result?._meta as { 'kasir/costMicroUsd'?: number } | undefined)?.['kasir/costMicroUsd'];
  if (String(answer.headers['content-type']).startsWith('text/event-stream')) {
    const chunks = answer.text.split('\n\n').filter((f) => f.startsWith('data: {'));
    const last = JSON.parse((chunks.at(-1) ?? 'data: {}').slice(6)) as { costMicroUsd?: number };
    return last.costMicroUsd;
  }
  return (JSON.parse(answer.text) as { costMicroUsd?: number }).costMicroUsd;
}

describe.each(DB_TARGETS)('paid routes under arbitrary input on %s', (db) => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let key: string;
  let accountId: string;
  /** What 200 answers charged the key, and the wallet (replays of an Idempotency-Key charge nothing new). */
  let charged = 0;
  let walletCharged = 0;
  let mppCharged = 0;
  /** The MPP payout wallet starts funded (it sends refunds and pays their fees). */
  let recipientStart = 0n;
  let tempoChain: TempoDevnet;
  let devnet: EvmDevnet;
  let payer: ReturnType<typeof evmPayer>;
  let walletFunds: bigint;
  let toolFakes: ToolFakes;

  beforeAll(async () => {
    toolFakes = await startToolFakes();
    devnet = await startEvmDevnet();
    tempoChain = await startTempoDevnet();
    recipientStart = await tempoChain.balanceOf(tempoChain.recipient.address);
    payer = evmPayer(devnet);
    walletFunds = await erc20BalanceOf(devnet.rpcUrl, devnet.asset, devnet.payer.address);
    kasir = await startPaidKasir(db, { ...kasirEnv(devnet), ...mppEnv(tempoChain), ...toolFakes.env });
    server = await startServer(kasir.app, '127.0.0.1', 0);
    ({ key, accountId } = await kasir.fundedKey(FUNDS));
  }, 60_000);
  afterAll(async () => {
    await server?.stop(1000);
    await kasir?.stop();
    await devnet?.stop();
    await tempoChain?.stop();
    await toolFakes?.close();
  });

  async function send(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
    const sent: Record<string, string> = { ...routeHeaders(path) };
    for (const [name, value] of Object.entries(headers)) sent[name] = value.replaceAll(KEY, key);
    const res = await request(`${server.url}${path}`, {
      method: 'POST',
      body,
      headers: sent,
      headersTimeout: ANSWER_WITHIN_MS,
      bodyTimeout: ANSWER_WITHIN_MS,
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  /** Sends a valid request, paid on the route's rail (x402: asks for the 402, pays it, sends it again). */
  async function sendPaid(route: PaidRouteCase, body: Record<string, unknown>): Promise<Answer> {
    const json = JSON.stringify(body);
    if (route.rail === 'mpp') {
      const unpaid = await request(`${server.url}${route.path}`, {
        method: 'POST',
        body: json,
        headers: { 'content-type': 'application/json' },
      });
      const challenge = new Response(await unpaid.body.text(), {
        status: unpaid.statusCode,
        headers: { 'www-authenticate': String(unpaid.headers['www-authenticate']) },
      });
      // anvil takes one expiring-nonce payment per sender: a fresh payer per call.
      const funded = await tempoChain.fundPayer(10_000_000n);
      const mppx = Mppx.create({
        polyfill: false,
        methods: [tempo({ account: privateKeyToAccount(funded.privateKey), getClient: tempoChain.client })],
      });
      const credential = await mppx.createCredential(challenge);
      return send(route.path, json, { 'content-type': 'application/json', authorization: credential });
    }
    if (route.rail !== 'x402') {
      return send(route.path, json, { 'content-type': 'application/json', authorization: `Bearer ${KEY}` });
    }
    const unpaid = await send(route.path, json, { 'content-type': 'application/json' });
    expect(unpaid.status, unpaid.text.slice(0, 300)).toBe(402);
    const [option] = decodePaymentRequiredHeader(String(unpaid.headers['payment-required'])).accepts;
    const payment = await payer.pay(option as PaymentRequirements);
    return send(route.path, json, {
      'content-type': 'application/json',
      'payment-signature': encodePaymentSignatureHeader(payment),
    });
  }

  /** What must hold of any answer: no 5xx; a refusal charges nothing; a 200 charges exactly `quote`. */
  function checkAnswer(answer: Answer, quoteOf: () => number): void {
    expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    const chargedHeader = answer.headers['x-service-charged-micro-usd'];
    if (!sold(answer)) {
      if (chargedHeader !== undefined) expect(chargedHeader).toBe('0');
      return;
    }
    const quote = quoteOf();
    expect(statedCost(answer)).toBe(quote);
    // A replay repeats the first answer's body but charges nothing, and says so.
    const replayed = answer.headers['idempotent-replayed'] === 'true';
    if (chargedHeader !== undefined) expect(chargedHeader).toBe(replayed ? '0' : String(quote));
    if (replayed) return;
    if (chargedHeader !== undefined) charged += quote;
    if (answer.headers['payment-response'] !== undefined) walletCharged += quote;
    // A stream paid by a pull payment states its MPP receipt in its closing chunk (broadcast as it started).
    if (answer.headers['payment-receipt'] !== undefined || answer.text.includes('"rail":"mpp"'))
      mppCharged += quote;
  }

  for (const route of PAID_ROUTES) {
    /** The quote of a body read only once it was answered 200 (a refused one may not even be JSON). */
    const quoteOf = (read: () => unknown) => () =>
      kasir.quote((route.quoted ?? ((b) => b))(read() as Record<string, unknown>));
    it(`${route.path}: valid requests are answered 200 and charged exactly their quote`, async () => {
      await fc.assert(
        fc.asyncProperty(route.valid, async (body) => {
          const answer = await sendPaid(route, body);
          expect(sold(answer), answer.text.slice(0, 300)).toBe(true);
          checkAnswer(
            answer,
            quoteOf(() => body),
          );
        }),
        { numRuns: 60 },
      );
    });

    it(`${route.path}: arbitrary bodies and headers never get a 5xx, and charge nothing unless answered 200`, async () => {
      await fc.assert(
        fc.asyncProperty(anyBody, headersArb, async (body, headers) => {
          const answer = await send(route.path, body, headers);
          checkAnswer(
            answer,
            quoteOf(() => JSON.parse(String(body))),
          );
        }),
        { numRuns: 200 },
      );
    });

    it(`${route.path}: byte mutations of valid requests never get a 5xx; refusals charge nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(route.valid, mutationsArb, headersArb, async (body, mutations, headers) => {
          const bytes = mutate(Buffer.from(JSON.stringify(body)), mutations);
          const answer = await send(route.path, bytes, headers);
          checkAnswer(
            answer,
            quoteOf(() => JSON.parse(bytes.toString('utf8'))),
          );
        }),
        { numRuns: 200 },
      );
    });
  }

  it('leaves the account and the wallets holding exactly their funds less what the 200 answers charged', async () => {
    expect(walletCharged).toBeGreaterThan(0);
    expect(mppCharged).toBeGreaterThan(0);
    // pathUSD's 6 decimals: the MPP recipient holds exactly what the 200 answers paid by MPP cost.
    expect(await tempoChain.balanceOf(tempoChain.recipient.address)).toBe(
      recipientStart + BigInt(mppCharged),
    );
    // USDC's 6 decimals: base units are micro-USD.
    expect(await erc20BalanceOf(devnet.rpcUrl, devnet.asset, devnet.payer.address)).toBe(
      walletFunds - BigInt(walletCharged),
    );
    expect(charged).toBeGreaterThan(0);
    expect(await kasir.balance(accountId)).toEqual({ balance: FUNDS - charged, held: 0 });
    expect(await kasir.ledger(accountId)).toEqual({ balance: FUNDS - charged, held: 0 });
  });
});

/**
 * The same routes on the default install (no wallet rail) and on one rail at a time, with fewer runs: no 5xx, a
 * refusal charges nothing, an unpaid valid call is a 402 (a 503 on a wallet route whose rail is off), and a funded
 * key pays every route — the wallet routes included — charged exactly its quote.
 */
describe.each(RAIL_CONFIGS)('paid routes under arbitrary input with %s', (config) => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let key: string;
  let accountId: string;
  let charged = 0;
  let toolFakes: ToolFakes;
  let chain: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    toolFakes = await startToolFakes();
    let env: Record<string, string> = {};
    if (config === 'x402 only') {
      const evm = await startEvmDevnet();
      chain = evm;
      env = kasirEnv(evm);
    } else if (config === 'mpp only') {
      const tempoChain = await startTempoDevnet();
      chain = tempoChain;
      env = mppEnv(tempoChain);
    }
    kasir = await startPaidKasir('sqlite', { ...env, ...toolFakes.env });
    server = await startServer(kasir.app, '127.0.0.1', 0);
    ({ key, accountId } = await kasir.fundedKey(FUNDS));
  }, 60_000);
  afterAll(async () => {
    await server?.stop(1000);
    await kasir?.stop();
    await chain?.stop();
    await toolFakes?.close();
  });

  async function send(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
    // Sent from a browser agent's origin: every answer, paid or refused, must be readable by it (CORS).
    const sent: Record<string, string> = { origin: 'https://agent.example', ...routeHeaders(path) };
    for (const [name, value] of Object.entries(headers)) sent[name] = value.replaceAll(KEY, key);
    const res = await request(`${server.url}${path}`, {
      method: 'POST',
      body,
      headers: sent,
      headersTimeout: ANSWER_WITHIN_MS,
      bodyTimeout: ANSWER_WITHIN_MS,
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  /** As above; a wallet route whose rail is off may also answer its 503 `not_configured` (never any other 5xx). */
  function checkAnswer(answer: Answer, quoteOf: () => number, off: boolean): void {
    const railOff = off && answer.status === 503 && answer.text.includes('"not_configured"');
    if (!railOff) expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    const chargedHeader = answer.headers['x-service-charged-micro-usd'];
    if (!sold(answer)) {
      if (chargedHeader !== undefined) expect(chargedHeader).toBe('0');
      return;
    }
    const quote = quoteOf();
    expect(statedCost(answer)).toBe(quote);
    expect(chargedHeader).toBe(String(quote));
    if (answer.headers['idempotent-replayed'] !== 'true') charged += quote;
  }

  // The route list has two /v1/chat/completions cases (key and MPP): here a key pays both, so one is enough.
  const routes = PAID_ROUTES.filter((r, i) => PAID_ROUTES.findIndex((o) => o.path === r.path) === i);
  for (const route of routes) {
    const quoteOf = (read: () => unknown) => () =>
      kasir.quote((route.quoted ?? ((b) => b))(read() as Record<string, unknown>));
    const off = walletRouteOff(config, route.path);

    it(`${route.path}: unpaid is ${off ? '503' : '402'}; a funded key is answered 200 and charged the quote`, async () => {
      await fc.assert(
        fc.asyncProperty(route.valid, async (body) => {
          const json = JSON.stringify(body);
          const unpaid = await send(route.path, json, { 'content-type': 'application/json' });
          const rpc = rpcAnswer(unpaid);
          if (rpc) {
            // Over MCP, the 402 is the payment-required JSON-RPC error, listing the rails the route's 402 lists.
            expect(rpc.error?.code, unpaid.text.slice(0, 300)).toBe(-32042);
            const rails = (rpc.error as { data?: { rails?: unknown[] } }).data?.rails ?? [];
            expect(rails.length).toBe(kasir.deps.rails.accepting('/v1/tools/exchange-rate').length);
          } else {
            expect(unpaid.status, unpaid.text.slice(0, 300)).toBe(off ? 503 : 402);
            expect(unpaid.headers['www-authenticate'] !== undefined).toBe(!off);
          }
          const answer = await send(route.path, json, {
            'content-type': 'application/json',
            authorization: `Bearer ${KEY}`,
          });
          expect(sold(answer), answer.text.slice(0, 300)).toBe(true);
          checkAnswer(
            answer,
            quoteOf(() => body),
            off,
          );
        }),
        { numRuns: 3 },
      );
    });

    it(`${route.path}: arbitrary bodies and headers never get a 5xx, and charge nothing unless answered 200`, async () => {
      await fc.assert(
        fc.asyncProperty(anyBody, headersArb, async (body, headers) => {
          checkAnswer(
            await send(route.path, body, headers),
            quoteOf(() => JSON.parse(String(body))),
            off,
          );
        }),
        { numRuns: 25 },
      );
    });
  }

  it('leaves the account holding exactly its funds less what the 200 answers charged', async () => {
    expect(charged).toBeGreaterThan(0);
    expect(await kasir.balance(accountId)).toEqual({ balance: FUNDS - charged, held: 0 });
    expect(await kasir.ledger(accountId)).toEqual({ balance: FUNDS - charged, held: 0 });
  });
});
