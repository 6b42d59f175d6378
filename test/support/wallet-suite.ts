// One test suite for every x402 chain: a real client pays kasir on a local chain (anvil, litesvm, a fake Algorand
// ledger) and the balances, headers, records and refusals are checked. A chain joins with a fixture.
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawEnv } from '../../src/config/config-file.js';
import type { X402SignerOverrides } from '../../src/rails/x402/open.js';
import { type DbTarget, postJson } from './app.js';
import { chatBody, type PaidKasir, startPaidKasir } from './paid.js';

export interface WalletFixture {
  /** The route family's prefix: `/x402`, `/a402` or `/b402`. */
  prefix: string;
  network: string;
  /** The token's decimals (the amount is the quote × 10^(decimals − 6)). */
  decimals: number;
  env: RawEnv;
  signers?: X402SignerOverrides;
  /** Pays these requirements with the chain's real client. */
  pay(requirements: PaymentRequirements): Promise<PaymentPayload>;
  /** A payment that signs less than `accepted` says. */
  underpay(requirements: PaymentRequirements): Promise<PaymentPayload>;
  /** A payment to someone else than `accepted.payTo`. */
  wrongPayTo(requirements: PaymentRequirements): Promise<PaymentPayload>;
  payerBalance(): Promise<bigint>;
  payToBalance(): Promise<bigint>;
  close(): Promise<void>;
}

const MODEL = 'openai/gpt-4.1-mini';
const ADMIN_TOKEN = 'wallet-suite-admin-token';

export function baseUnitsOf(microUsd: number, decimals: number): bigint {
  return BigInt(microUsd) * 10n ** BigInt(decimals - 6);
}

/** The 402's PAYMENT-REQUIRED, decoded. */
export function paymentRequiredOf(res: Response): PaymentRequired {
  const header = res.headers.get('payment-required');
  expect(header, 'PAYMENT-REQUIRED').toBeTruthy();
  return decodePaymentRequiredHeader(header as string);
}

/** Pays the first option a 402 names with the fixture's client: the payload, its PAYMENT-SIGNATURE and the amount. */
export async function payChallenge(
  fx: Pick<WalletFixture, 'pay'>,
  challenge: Response,
): Promise<{ payment: PaymentPayload; signature: string; amount: bigint }> {
  const [requirements] = paymentRequiredOf(challenge).accepts;
  expect(requirements, 'an x402 option in the 402').toBeDefined();
  const payment = await fx.pay(requirements as PaymentRequirements);
  return {
    payment,
    signature: encodePaymentSignatureHeader(payment),
    amount: BigInt((requirements as PaymentRequirements).amount),
  };
}

/** Asks for the 402 with `send()`, pays what it names and sends the call again with the payment. */
export async function paidWithWallet(
  fx: Pick<WalletFixture, 'pay'>,
  send: (headers?: Record<string, string>) => Response | Promise<Response>,
): Promise<{ res: Response; amount: bigint }> {
  const { signature, amount } = await payChallenge(fx, await send());
  return { res: await send({ 'payment-signature': signature }), amount };
}

/** What a chain's own tests get from the suite: a paid call on its route, made with the fixture's real client. */
export interface WalletCalls {
  /** Asks for the 402, pays it with `fx.pay` and sends the call again; returns the paid answer. */
  paidCall(text: string): Promise<Response>;
  /** The unpaid call's 402. */
  challenge(text: string): Promise<Response>;
}

export function describeWalletRail<F extends WalletFixture>(
  name: string,
  target: DbTarget,
  makeFixture: () => Promise<F>,
  chainTests?: (fixture: () => F, calls: WalletCalls) => void,
) {
  describe(`x402 on ${name} (${target})`, () => {
    let fx: F;
    let kasir: PaidKasir;
    beforeAll(async () => {
      fx = await makeFixture();
      kasir = await startPaidKasir(target, { ADMIN_TOKEN, ...fx.env }, undefined, {
        x402Signers: fx.signers ?? {},
      });
    }, 60_000);
    afterAll(async () => {
      await kasir?.stop();
      await fx?.close();
    });

    const route = () => `${fx.prefix}/${MODEL}`;
    const body = (text = 'Say hello') => {
      const { model: _m, ...rest } = chatBody(MODEL, text);
      return rest;
    };
    const post = (b: Record<string, unknown>, headers: Record<string, string> = {}) =>
      postJson(kasir, route(), b, headers);
    const requirementsFor = async (b: Record<string, unknown>) => {
      const res = await post(b);
      expect(res.status).toBe(402);
      const accepts = paymentRequiredOf(res).accepts.filter((r) => r.network === fx.network);
      expect(accepts.length).toBeGreaterThan(0);
      return accepts[0] as PaymentRequirements;
    };
    const signature = (p: PaymentPayload) => encodePaymentSignatureHeader(p);
    const usageRows = () =>
      kasir.deps.db.kysely.selectFrom('usage_records').selectAll().where('rail', '=', 'x402').execute();

    it('answers an unpaid call with a 402 whose PAYMENT-REQUIRED names this chain at the quote', async () => {
      const b = body();
      const res = await post(b);
      expect(res.status).toBe(402);
      const required = paymentRequiredOf(res);
      const quote = kasir.quote({ ...b, model: MODEL });
      const option = required.accepts.find((r) => r.network === fx.network);
      expect(option?.amount).toBe(baseUnitsOf(quote, fx.decimals).toString());
      expect(option?.scheme).toBe('exact');
      expect(required.resource.url).toContain(route());
      expect(Object.keys(required.extensions ?? {})).toContain('bazaar');
      const json = (await res.json()) as {
        error: { code: string; details: { rails: Array<{ rail: string }> } };
      };
      expect(json.error.code).toBe('payment_required');
      // A prepaid key pays any paid route, the wallet routes included: the 402 lists it beside the chain.
      expect(json.error.details.rails.map((r) => r.rail)).toEqual(['prepaid', 'x402']);
    });

    it('refuses bad input with a 400 before any challenge', async () => {
      const res = await post({ messages: 'hello' });
      expect(res.status).toBe(400);
      expect(res.headers.get('payment-required')).toBeNull();
    });

    it('charges exactly the quote on success, records the settlement, replays its answer for the same payment and body, and refuses the payment for another body', async () => {
      const b = body('Pay me once');
      const requirements = await requirementsFor(b);
      const [payerBefore, payToBefore] = [await fx.payerBalance(), await fx.payToBalance()];
      const payment = await fx.pay(requirements);
      const calls = kasir.openai.requests.length;
      const res = await post(b, { 'payment-signature': signature(payment) });
      expect(res.status).toBe(200);
      const quote = kasir.quote({ ...b, model: MODEL });
      const json = (await res.json()) as Record<string, unknown>;
      expect(json.model).toBe(MODEL);
      expect(json.costMicroUsd).toBe(quote);
      expect((json.output as { object: string }).object).toBe('chat.completion');
      const settled = decodePaymentResponseHeader(res.headers.get('payment-response') as string);
      expect(settled.success).toBe(true);
      expect(settled.transaction).toBeTruthy();
      const amount = baseUnitsOf(quote, fx.decimals);
      expect(await fx.payerBalance()).toBe(payerBefore - amount);
      expect(await fx.payToBalance()).toBe(payToBefore + amount);
      expect(kasir.openai.requests.length).toBe(calls + 1);
      const row = (await usageRows()).find((r) => r.tx_id === settled.transaction);
      expect(row).toMatchObject({
        charged_micro_usd: quote,
        network: fx.network,
        route: route(),
        status: 'charged',
      });
      expect(row?.payer).toBeTruthy();
      const admin = await kasir.app.request(
        `/v1/admin/usage?rail=x402&payer=${encodeURIComponent(String(row?.payer))}`,
        {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        },
      );
      const listed = (await admin.json()) as { items: Array<{ tx_id: string | null }> };
      expect(listed.items.map((i) => i.tx_id)).toContain(settled.transaction);

      // The same payment with the same body (a caller whose answer was cut off): the stored answer, nothing settled,
      // nothing run again.
      const again = await post(b, { 'payment-signature': signature(payment) });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(json);
      expect(decodePaymentResponseHeader(again.headers.get('payment-response') as string).transaction).toBe(
        settled.transaction,
      );
      // The same payment for another call: spent.
      const other = await post(body('Pay me twice'), { 'payment-signature': signature(payment) });
      expect(other.status).toBe(402);
      expect(((await other.json()) as { error: { code: string } }).error.code).toBe('payment_replayed');
      expect(paymentRequiredOf(other).accepts.length).toBeGreaterThan(0);
      expect(await fx.payerBalance()).toBe(payerBefore - amount);
      expect(await fx.payToBalance()).toBe(payToBefore + amount);
      expect(kasir.openai.requests.length).toBe(calls + 1);
      expect((await usageRows()).filter((r) => r.tx_id === settled.transaction)).toHaveLength(1);
    });

    it('settles nothing when the upstream fails, and the same payment works once it is back', async () => {
      const b = body('Upstream down');
      const requirements = await requirementsFor(b);
      const payerBefore = await fx.payerBalance();
      const payment = await fx.pay(requirements);
      kasir.openai.setScript({ failure: { kind: 'status', status: 500 } });
      const failed = await post(b, { 'payment-signature': signature(payment) });
      kasir.openai.setScript({});
      expect(failed.status).toBe(502);
      expect(failed.headers.get('payment-response')).toBeNull();
      expect(await fx.payerBalance()).toBe(payerBefore);
      const retried = await post(b, { 'payment-signature': signature(payment) });
      expect(retried.status).toBe(200);
      expect(await fx.payerBalance()).toBe(
        payerBefore - baseUnitsOf(kasir.quote({ ...b, model: MODEL }), fx.decimals),
      );
    });

    it('refuses an underpayment and a payment to someone else, with a fresh challenge', async () => {
      const b = body('Cheat');
      const requirements = await requirementsFor(b);
      const payerBefore = await fx.payerBalance();
      const calls = kasir.openai.requests.length;
      for (const payment of [await fx.underpay(requirements), await fx.wrongPayTo(requirements)]) {
        const res = await post(b, { 'payment-signature': signature(payment) });
        expect(res.status).toBe(402);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payment_invalid');
        expect(paymentRequiredOf(res).accepts.length).toBeGreaterThan(0);
      }
      expect(await fx.payerBalance()).toBe(payerBefore);
      expect(kasir.openai.requests.length).toBe(calls);
    });

    it('refuses a payment signed for a cheaper call than the one sent', async () => {
      const requirements = await requirementsFor(body('x'));
      const payment = await fx.pay(requirements);
      const res = await post(body('a much longer message than the one that was priced '.repeat(20)), {
        'payment-signature': signature(payment),
      });
      expect(res.status).toBe(402);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payment_invalid');
    });

    it('runs the model once when two requests carry one payment at the same time', async () => {
      const b = body('Twice at once');
      const requirements = await requirementsFor(b);
      const payerBefore = await fx.payerBalance();
      const payment = await fx.pay(requirements);
      const calls = kasir.openai.requests.length;
      const answers = await Promise.all(
        [1, 2].map(() => post(b, { 'payment-signature': signature(payment) })),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 402]);
      expect(kasir.openai.requests.length).toBe(calls + 1);
      const quote = kasir.quote({ ...b, model: MODEL });
      expect(await fx.payerBalance()).toBe(payerBefore - baseUnitsOf(quote, fx.decimals));
    });

    chainTests?.(() => fx, {
      async paidCall(text) {
        const b = body(text);
        const payment = await fx.pay(await requirementsFor(b));
        return post(b, { 'payment-signature': signature(payment) });
      },
      challenge: async (text) => post(body(text)),
    });
  });
}
