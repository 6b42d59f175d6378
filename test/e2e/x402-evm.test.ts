// x402 on EVM chains: the stock @x402/evm client pays kasir, kasir's in-process facilitator settles on anvil with
// the operator's key. Base (/x402, USDC's 6 decimals) on SQLite and PostgreSQL; BNB Smart Chain (/b402, chain 56,
// an 18-decimal token) on SQLite.

import { encodePaymentSignatureHeader } from '@x402/core/http';
import { parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { devnetClient } from '../../src/devnet/evm.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { evmFixture, useBaseWalletKasir } from '../support/evm-wallet.js';
import { chatBody, type PaidKasir, startTwoPaidKasirs } from '../support/paid.js';
import { freshPostgres, postgresUp } from '../support/services.js';
import { describeWalletRail, payChallenge } from '../support/wallet-suite.js';

for (const target of DB_TARGETS) describeWalletRail('Base', target, () => evmFixture('BASE', {}));
describeWalletRail('BNB Smart Chain', 'sqlite', () => evmFixture('BNB', { chainId: 56, decimals: 18 }));

describe.runIf(postgresUp)('x402 with two instances on one PostgreSQL', () => {
  it('never lets both accept one payment, however the requests race (the others are refused, or replay its answer)', async () => {
    const pg = await freshPostgres();
    const fx = await evmFixture('BASE', {});
    const env = { ...fx.env, DATABASE_URL: pg.url };
    const [one, two] = await startTwoPaidKasirs('postgres', env);
    try {
      const path = '/x402/openai/gpt-4.1-mini';
      const post = (kasir: PaidKasir, body: string, headers: Record<string, string> = {}) =>
        postJson(kasir, path, body, headers);
      for (let round = 0; round < 5; round++) {
        const body = JSON.stringify({
          messages: [{ role: 'user', content: `race ${round}` }],
          max_tokens: 16,
        });
        const { signature: payment, amount } = await payChallenge(fx, await post(one, body));
        const before = await fx.payerBalance();
        const calls = one.openai.requests.length;
        const answers = await Promise.all(
          [one, two, one, two].map((k) => post(k, body, { 'payment-signature': payment })),
        );
        // One call ran and settled; the others were refused while it ran, or (sent after it ended) got its
        // stored answer back, marked as a replay.
        const ran = answers.filter(
          (r) => r.status === 200 && r.headers.get('idempotent-replayed') !== 'true',
        );
        expect(ran).toHaveLength(1);
        const answer = await ran[0]?.text();
        for (const other of answers.filter((r) => !ran.includes(r))) {
          if (other.status === 200) expect(await other.text()).toBe(answer);
          else expect(other.status).toBe(402);
        }
        expect(one.openai.requests.length).toBe(calls + 1);
        expect(before - (await fx.payerBalance())).toBe(amount);
      }
    } finally {
      await two.stop();
      await one.stop();
      await fx.close();
      await pg.drop();
    }
  }, 60_000);
});

describe('x402 routes and /v1/* (Base, SQLite)', () => {
  const wallet = useBaseWalletKasir();
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    postJson(wallet.kasir, path, body, headers);
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; message: string } }).error;

  it('lets an x402 client pay any /v1/* route: its 402 carries PAYMENT-REQUIRED beside the other rails', async () => {
    const body = chatBody('openai/gpt-4.1-mini', 'Paid on /v1');
    const unpaid = await post('/v1/chat/completions', body);
    expect(unpaid.status).toBe(402);
    const json = (await unpaid.clone().json()) as { error: { details: { rails: Array<{ rail: string }> } } };
    expect(json.error.details.rails.map((r) => r.rail)).toEqual(['prepaid', 'x402']);
    const { signature } = await payChallenge(wallet.fx, unpaid);
    const before = await wallet.fx.payerBalance();
    const paid = await post('/v1/chat/completions', body, { 'payment-signature': signature });
    expect(paid.status).toBe(200);
    const completion = (await paid.json()) as { object: string; costMicroUsd: number };
    expect(completion.object).toBe('chat.completion');
    expect(completion.costMicroUsd).toBe(wallet.kasir.quote(body));
    expect(before - (await wallet.fx.payerBalance())).toBe(BigInt(completion.costMicroUsd));
    expect(paid.headers.get('payment-response')).toBeTruthy();
  });

  it('replays an Idempotency-Key result to the same payment only, never to another payload claiming its payer', async () => {
    const body = { messages: [{ role: 'user', content: 'Once, with a key' }], max_tokens: 16 };
    const { payment, signature } = await payChallenge(
      wallet.fx,
      await post('/x402/openai/gpt-4.1-mini', body),
    );
    const headers = { 'idempotency-key': 'wallet-key-1', 'payment-signature': signature };
    const first = await post('/x402/openai/gpt-4.1-mini', body, headers);
    expect(first.status).toBe(200);
    const again = await post('/x402/openai/gpt-4.1-mini', body, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    // The same key and body with a payload that merely names the same payer: no stored result for it.
    const forged = { ...payment, payload: { ...payment.payload, signature: `0x${'11'.repeat(65)}` } };
    const stranger = await post('/x402/openai/gpt-4.1-mini', body, {
      'idempotency-key': 'wallet-key-1',
      'payment-signature': encodePaymentSignatureHeader(forged as typeof payment),
    });
    expect(stranger.status).toBe(402);
    expect(stranger.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers a payment that settled on chain while its process died, once, when it is sent again, and only to the payer', async () => {
    const path = '/x402/openai/gpt-4.1-mini';
    const body = { messages: [{ role: 'user', content: 'Settled, then the process died' }], max_tokens: 16 };
    const { payment, signature, amount } = await payChallenge(wallet.fx, await post(path, body));
    // What a process that died right after settling leaves: the payment spent on chain, nothing in kasir's books.
    const env = wallet.fx.env as Record<string, string>;
    const asset = env.X402_BASE_ASSET as `0x${string}`;
    const chainId = Number(wallet.fx.network.slice('eip155:'.length));
    const operator = devnetClient(
      { chainId, rpcUrl: env.X402_BASE_RPC_URL as string },
      env.X402_BASE_PRIVATE_KEY as `0x${string}`,
    );
    const signed = payment.payload as {
      signature: `0x${string}`;
      authorization: Record<'from' | 'to' | 'value' | 'validAfter' | 'validBefore' | 'nonce', string>;
    };
    const a = signed.authorization;
    const tx = await operator.writeContract({
      address: asset,
      abi: parseAbi([
        'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
      ]),
      functionName: 'transferWithAuthorization',
      args: [
        a.from as `0x${string}`,
        a.to as `0x${string}`,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as `0x${string}`,
        signed.signature,
      ],
    });
    expect((await operator.waitForTransactionReceipt({ hash: tx })).status).toBe('success');
    const before = await wallet.fx.payerBalance();
    const calls = wallet.kasir.openai.requests.length;
    // Its payer and nonce without the payer's signature: refused, nothing run.
    const forged = { ...payment, payload: { ...payment.payload, signature: `0x${'11'.repeat(65)}` } };
    const stranger = await post(path, body, {
      'payment-signature': encodePaymentSignatureHeader(forged as typeof payment),
    });
    expect(stranger.status).toBe(402);
    expect((await errorOf(stranger)).code).toBe('payment_invalid');
    expect(wallet.kasir.openai.requests.length).toBe(calls);
    // The payment itself: its answer, with the settlement it already had, nothing moved again.
    const res = await post(path, body, { 'payment-signature': signature });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { costMicroUsd: number; receipt: { transaction: string } };
    expect(json.receipt.transaction).toBe(tx);
    expect(BigInt(json.costMicroUsd)).toBe(amount);
    expect(wallet.kasir.openai.requests.length).toBe(calls + 1);
    expect(await wallet.fx.payerBalance()).toBe(before);
    const charged = () =>
      wallet.kasir.deps.db.kysely
        .selectFrom('usage_records')
        .select('charged_micro_usd')
        .where('tx_id', '=', tx)
        .where('charged_micro_usd', '>', 0)
        .execute();
    expect(await charged()).toHaveLength(1);
    // Sent again: the stored answer; for another body: spent.
    const again = await post(path, body, { 'payment-signature': signature });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as typeof json).receipt.transaction).toBe(tx);
    const other = await post(path, { ...body, max_tokens: 17 }, { 'payment-signature': signature });
    expect(other.status).toBe(402);
    expect(wallet.kasir.openai.requests.length).toBe(calls + 1);
    expect(await charged()).toHaveLength(1);
  });

  it('answers a payment whose process settled and recorded it but died before storing its answer, without charging it again', async () => {
    const path = '/x402/openai/gpt-4.1-mini';
    const body = { messages: [{ role: 'user', content: 'Recorded, then the process died' }], max_tokens: 16 };
    const { signature } = await payChallenge(wallet.fx, await post(path, body));
    const first = await post(path, body, { 'payment-signature': signature });
    expect(first.status).toBe(200);
    const tx = ((await first.json()) as { receipt: { transaction: string } }).receipt.transaction;
    // What that process leaves: the payment settled ('paid', its usage recorded), no answer stored for it.
    const { db } = wallet.kasir.deps;
    await db.kysely.updateTable('wallet_payments').set({ state: 'paid' }).where('tx_id', '=', tx).execute();
    await db.kysely.deleteFrom('idempotency_records').execute();
    const before = await wallet.fx.payerBalance();
    const calls = wallet.kasir.openai.requests.length;
    const res = await post(path, body, { 'payment-signature': signature });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(((await res.json()) as { receipt: { transaction: string } }).receipt.transaction).toBe(tx);
    expect(wallet.kasir.openai.requests.length).toBe(calls + 1);
    expect(await wallet.fx.payerBalance()).toBe(before);
    const rows = await db.kysely
      .selectFrom('usage_records')
      .select('charged_micro_usd')
      .where('tx_id', '=', tx)
      .where('charged_micro_usd', '>', 0)
      .execute();
    expect(rows).toHaveLength(1);
    const state = await db.kysely
      .selectFrom('wallet_payments')
      .select('state')
      .where('tx_id', '=', tx)
      .executeTakeFirst();
    expect(state?.state).toBe('settled');
  });

  it('answers 503 before any challenge for a model this server cannot run, and 404 for an unknown one', async () => {
    const notRunnable = await post('/x402/runwayml/gen4_turbo', {
      promptImage: 'https://example.com/cat.png',
      ratio: '1280:720',
    });
    expect(notRunnable.status).toBe(503);
    expect(notRunnable.headers.get('payment-required')).toBeNull();
    expect((await post('/x402/no-such/model', {})).status).toBe(404);
    expect((await post('/x402/tools/no-such-tool', {})).status).toBe(404);
  });

  it('refuses streaming on the per-model route, pointing to /v1/chat/completions', async () => {
    const res = await post('/x402/openai/gpt-4.1-mini', {
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain('stream');
  });

  it('refuses, before any payment, a generic-route model that costs more than the flat price', async () => {
    const pricier = await post('/x402/images', { model: 'openai/gpt-image-1', prompt: 'a cat' });
    expect(pricier.status).toBe(400);
    const error = await errorOf(pricier);
    expect(error.message).toContain('/x402/openai/gpt-image-1');
    expect(error.message).toContain('/v1/infer');
    // The default speech model, but a larger input than the flat price covers.
    const speech = await post('/x402/speech', { input: 'halo '.repeat(800), voice: 'alloy' });
    expect(speech.status).toBe(400);
    expect((await errorOf(speech)).message).toContain('flat 14000');
    const wrongKind = await post('/x402/images', { model: 'openai/tts-1', input: 'halo' });
    expect(wrongKind.status).toBe(400);
    // The default model, at a default size, is within the flat price: the route asks for it.
    expect((await post('/x402/images', { prompt: 'a cat' })).status).toBe(402);
  });
});
