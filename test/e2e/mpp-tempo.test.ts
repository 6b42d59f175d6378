// The MPP rail's Tempo charge end to end: the real mppx client pays kasir over HTTP on a local Tempo-mode chain
// (anvil --network tempo). Balances on the chain, receipts, refusals with fresh challenges; a failed call moves
// nothing (pull: never broadcast) or is refunded on-chain (push, or a pull whose stream died), never kept as credit.
import { Challenge, Credential, Receipt } from 'mppx';
import { Mppx, tempo } from 'mppx/client';
import { createClient, http, parseEventLogs, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Abis } from 'viem/tempo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempoChargeEnv } from '../../src/devnet/command.js';
import type { DevnetKey } from '../../src/devnet/evm.js';
import { PATH_USD, startTempoDevnet, type TempoDevnet } from '../../src/devnet/tempo.js';
import { challengeMeta } from '../../src/rails/mpp/rail.js';
import { CALL_CLAIM } from '../../src/rails/mpp/store.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { chatBody, type PaidKasir, startPaidKasir, startTwoPaidKasirs } from '../support/paid.js';
import { freshPostgres, postgresUp } from '../support/services.js';

const MODEL = 'openai/gpt-4.1-mini';
const URL_BASE = 'http://kasir.test';

interface Sent {
  authorization: string | null;
  status: number;
}

describe.each(DB_TARGETS)('MPP Tempo charge on %s', (db) => {
  let chain: TempoDevnet;
  let kasir: PaidKasir;
  let sponsored: PaidKasir;

  // `kasir` refunds from its payout wallet (push accepted); `sponsored` pays payers' fees and has no refund wallet.
  const env = (options: { feePayer?: DevnetKey; refunds?: boolean }) => ({
    ...tempoChargeEnv(chain),
    PUBLIC_BASE_URL: URL_BASE,
    ...(options.feePayer ? { MPP_TEMPO_FEE_PAYER_KEY: options.feePayer.privateKey } : {}),
    ...(options.refunds ? { MPP_TEMPO_REFUND_KEY: chain.recipient.privateKey } : {}),
  });

  beforeAll(async () => {
    chain = await startTempoDevnet();
    kasir = await startPaidKasir(db, env({ refunds: true }));
    sponsored = await startPaidKasir(db, env({ feePayer: chain.feePayer }), {
      openai: kasir.openai,
      anthropic: kasir.anthropic,
      gemini: kasir.gemini,
    });
  }, 60_000);
  afterAll(async () => {
    await sponsored?.stop();
    await kasir?.stop();
    await chain?.stop();
  });

  /** The real mppx client for `payer`, sending through kasir's app and recording every request it makes. */
  function client(
    on: PaidKasir,
    payer: DevnetKey,
    mode: 'pull' | 'push' = 'pull',
    headers: Record<string, string> = {},
  ) {
    const sent: Sent[] = [];
    const mppx = Mppx.create({
      polyfill: false,
      methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client, mode })],
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const h = new Headers(init?.headers);
        for (const [k, v] of Object.entries(headers)) h.set(k, v);
        const res = await on.app.request(String(input), { ...init, headers: h });
        sent.push({ authorization: h.get('authorization'), status: res.status });
        return res;
      },
    });
    const call = (body: Record<string, unknown>) =>
      mppx.fetch(`${URL_BASE}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    return { call, sent };
  }

  const post = (on: PaidKasir, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postJson(on, `${URL_BASE}/v1/chat/completions`, body, headers);

  const walletQuote = (body: Record<string, unknown>) => kasir.quote(body);

  /** The tempo challenge kasir answers `body` with, and `payer`'s credential for it (made by mppx, not sent). */
  async function credentialFor(payer: DevnetKey, body: Record<string, unknown>) {
    const unpaid = await post(kasir, body);
    const challenge = Challenge.fromHeadersList(unpaid.headers).find((c) => c.method === 'tempo');
    if (!challenge) throw new Error('no tempo challenge');
    const mppx = Mppx.create({
      polyfill: false,
      methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client })],
    });
    const credential = await mppx.createCredential(
      new Response(null, {
        status: 402,
        headers: { 'www-authenticate': Challenge.serialize(challenge) },
      }),
    );
    return { challenge, credential };
  }

  it('answers an unpaid call with a Payment challenge bound to the route, body and price, as a problem document', async () => {
    const body = chatBody(MODEL, 'unpaid');
    const res = await post(kasir, body);
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const challenges = Challenge.fromHeadersList(res.headers);
    const tempoChallenge = challenges.find((c) => c.method === 'tempo');
    expect(tempoChallenge).toBeDefined();
    expect(tempoChallenge?.intent).toBe('charge');
    expect(tempoChallenge?.realm).toBe('kasir.test');
    expect(tempoChallenge?.request).toMatchObject({
      amount: String(walletQuote(body)),
      currency: PATH_USD,
      recipient: chain.recipient.address,
    });
    expect(challengeMeta(tempoChallenge as Challenge.Challenge)).toMatchObject({
      digest: expect.stringMatching(/^sha-256=:[A-Za-z0-9+/]+=*:$/),
    });
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: 'https://paymentauth.org/problems/payment-required',
      title: 'Payment Required',
      status: 402,
      error: { code: 'payment_required' },
    });
    const rails = (problem.error as { details: { rails: Array<{ rail: string }> } }).details.rails;
    expect(rails.map((r) => r.rail)).toEqual(expect.arrayContaining(['prepaid', 'mpp']));
  });

  it('is paid by the mppx client (pull): the recipient gains exactly the quote and the answer carries the receipt', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'paid pull');
    const quote = walletQuote(body);
    const before = await chain.balanceOf(chain.recipient.address);
    const { call, sent } = client(kasir, payer);
    const res = await call(body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { costMicroUsd: number; receipt: Record<string, unknown> };
    expect(answer.costMicroUsd).toBe(quote);
    expect(answer.receipt).toMatchObject({ rail: 'mpp', method: 'tempo', charged_micro_usd: quote });
    const receipt = Receipt.deserialize(res.headers.get('payment-receipt') ?? '');
    expect(receipt).toMatchObject({ method: 'tempo', status: 'success' });
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get('cache-control')).toBe('private');
    expect(await chain.balanceOf(chain.recipient.address)).toBe(before + BigInt(quote));
    expect(sent.map((s) => s.status)).toEqual([402, 200]);
  });

  it('is paid in push mode (the payer broadcasts, kasir checks the transfer)', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'paid push');
    const before = await chain.balanceOf(chain.recipient.address);
    const res = await client(kasir, payer, 'push').call(body);
    expect(res.status).toBe(200);
    expect(await chain.balanceOf(chain.recipient.address)).toBe(before + BigInt(walletQuote(body)));
  });

  it('with fee sponsorship the payer pays exactly the quote and the operator the network fee', async () => {
    const payer = await chain.fundPayer(5_000_000n);
    const body = chatBody(MODEL, 'sponsored');
    const quote = BigInt(walletQuote(body));
    const sponsorBefore = await chain.balanceOf(chain.feePayer.address);
    const res = await client(sponsored, payer).call(body);
    expect(res.status).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n - quote);
    expect(await chain.balanceOf(chain.feePayer.address)).toBeLessThan(sponsorBefore);
  });

  it('streams a paid chat: the pull payment is broadcast as the stream starts, the closing chunk carries its receipt', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'stream me', { stream: true });
    const before = await chain.balanceOf(chain.recipient.address);
    const res = await client(kasir, payer).call(body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: {'));
    const last = JSON.parse((frames.at(-1) as string).slice(6)) as {
      costMicroUsd: number;
      receipt: Record<string, unknown>;
    };
    expect(last.costMicroUsd).toBe(walletQuote(body));
    expect(last.receipt).toMatchObject({
      rail: 'mpp',
      method: 'tempo',
      charged_micro_usd: walletQuote(body),
    });
    expect(last.receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(chain.recipient.address)).toBe(before + BigInt(walletQuote(body)));
  });

  /** The TIP-20 transfers a transaction made (memo transfers with their memo). */
  async function transfersOf(hash: `0x${string}`) {
    const reader = createClient({ transport: http(chain.rpcUrl) }).extend(publicActions);
    const receipt = await reader.getTransactionReceipt({ hash });
    return parseEventLogs({ abi: Abis.tip20, logs: receipt.logs, eventName: 'TransferWithMemo' }).map(
      (l) => l.args,
    );
  }

  it('refunds on-chain a pull payment whose stream died after it was broadcast', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'dies mid-stream', { stream: true });
    const quote = BigInt(walletQuote(body));
    const recipientBefore = await chain.balanceOf(chain.recipient.address);
    kasir.openai.setScript({ failure: { kind: 'die', afterEvents: 2 } });
    const res = await client(kasir, payer).call(body);
    const text = await res.text();
    kasir.openai.setScript({});
    expect(text).toContain('event: error');
    // The refund record names the refund transaction: exactly the quote, from the payout wallet back to the payer,
    // its memo the payment's own transaction.
    const rows = await kasir.deps.db.kysely
      .selectFrom('mpp_store')
      .select('value')
      .where('key', 'like', 'kasir:mpp:refund:%')
      .execute();
    const records = rows.map((r) => JSON.parse(r.value) as Record<string, string>);
    const record = records.find((r) => r.payer?.toLowerCase() === payer.address.toLowerCase());
    expect(record).toMatchObject({ state: 'sent', amount: String(quote) });
    const [refund] = await transfersOf(record?.refund_tx as `0x${string}`);
    expect(refund).toMatchObject({ to: payer.address, amount: quote, memo: record?.payment_tx });
    expect(refund?.from.toLowerCase()).toBe(chain.recipient.address.toLowerCase());
    // The payout wallet got the payment and sent it back (paying the refund's fee): it kept nothing.
    expect(await chain.balanceOf(chain.recipient.address)).toBeLessThanOrEqual(recipientBefore);
  });

  it('replays its answer to a credential sent again, and once that is gone refuses it with a fresh challenge; no money moves', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'replay');
    const { call, sent } = client(kasir, payer);
    const first = await call(body);
    expect(first.status).toBe(200);
    const answer = await first.text();
    const credential = sent.find((s) => s.authorization)?.authorization as string;
    const before = await chain.balanceOf(chain.recipient.address);
    const calls = kasir.openai.requests.length;
    // A caller whose answer was cut off sends the same credential again: the stored answer, nothing moved or run.
    const replayed = await post(kasir, body, { authorization: credential });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.text()).toBe(answer);
    expect(kasir.openai.requests.length).toBe(calls);
    // Past the replay window (its record dropped): spent.
    await kasir.deps.db.kysely.deleteFrom('idempotency_records').execute();
    const again = await post(kasir, body, { authorization: credential });
    expect(again.status).toBe(402);
    // One vocabulary across rails: a replay is `payment_replayed` here as on x402.
    expect(await again.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/verification-failed',
      error: { code: 'payment_replayed' },
    });
    expect(Challenge.fromHeadersList(again.headers).some((c) => c.method === 'tempo')).toBe(true);
    expect(await chain.balanceOf(chain.recipient.address)).toBe(before);
    expect(kasir.openai.requests.length).toBe(calls);
  });

  it('answers a credential sent again while its call still runs as in progress, not as a replay; it pays once', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'still running');
    const { challenge, credential } = await credentialFor(payer, body);
    const recipientBefore = await chain.balanceOf(chain.recipient.address);
    kasir.openai.setScript({ text: 'slowly', answerDelayMs: 400 });
    try {
      const first = post(kasir, body, { authorization: credential });
      // The first call waits on the model: its payment is claimed, and broadcast only once the call succeeded.
      await expect
        .poll(() => kasir.openai.requests.some((r) => JSON.stringify(r.body).includes('still running')), {
          timeout: 5_000,
          interval: 10,
        })
        .toBe(true);
      const again = await post(kasir, body, { authorization: credential });
      expect(again.status).toBe(402);
      const refusal = (await again.json()) as { error: { code: string; message: string } };
      expect(refusal.error.code).toBe('payment_in_progress');
      expect(refusal.error.message).toContain('refused as expired within a minute');
      expect((await first).status).toBe(200);
    } finally {
      kasir.openai.setScript({});
    }
    // Broadcast once, after the call succeeded: the recipient got the quote once.
    const received = (await chain.balanceOf(chain.recipient.address)) - recipientBefore;
    expect(received).toBe(BigInt((challenge.request as { amount: string }).amount));
  });

  it('refuses, as expired and for good, a payment whose call was cut off before it was broadcast', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'cut off before its broadcast');
    const { challenge, credential } = await credentialFor(payer, body);
    // What an instance killed mid-call leaves: its claim on the payment, never broadcast, older than the signed
    // transaction's validity.
    const key = `kasir:mpp:pull:${challenge.id}`;
    const claimed = Date.now() - 60_000;
    await kasir.deps.db.kysely
      .insertInto('mpp_store')
      .values({
        key,
        value: JSON.stringify({ type: CALL_CLAIM, expires: Date.now() + 600_000, at: claimed }),
        expires_at: Date.now() + 600_000,
      })
      .execute();
    const payerBefore = await chain.balanceOf(payer.address);
    const calls = kasir.openai.requests.length;
    const res = await post(kasir, body, { authorization: credential });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payment_expired');
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);
    expect(kasir.openai.requests.length).toBe(calls);
  });

  it('refuses a credential for another body, and a tampered challenge, before any transfer', async () => {
    const payer = await chain.fundPayer();
    const body = chatBody(MODEL, 'bound');
    const { credential } = await credentialFor(payer, body);
    const payerBefore = await chain.balanceOf(payer.address);

    const otherBody = await post(kasir, chatBody(MODEL, 'another body'), { authorization: credential });
    expect(otherBody.status).toBe(402);
    expect(await otherBody.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/invalid-challenge',
    });

    const parsed = Credential.deserialize(credential);
    const cheaper = Credential.serialize({
      ...parsed,
      challenge: { ...parsed.challenge, request: { ...parsed.challenge.request, amount: '1' } },
    });
    const tampered = await post(kasir, body, { authorization: cheaper });
    expect(tampered.status).toBe(402);
    expect(await tampered.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/invalid-challenge',
    });

    const garbage = await post(kasir, body, { authorization: 'Payment !!!' });
    expect(garbage.status).toBe(402);
    expect(await garbage.json()).toMatchObject({
      type: 'https://paymentauth.org/problems/malformed-credential',
    });
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);

    // The untouched credential still pays the call it was made for.
    expect((await post(kasir, body, { authorization: credential })).status).toBe(200);
  });

  it('refuses bad input before any challenge or transfer', async () => {
    const res = await post(kasir, { model: MODEL, messages: [] });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('never broadcasts a pull payment whose call failed: the payer keeps its balance, the credential pays the retry', async () => {
    const payer = await chain.fundPayer(5_000_000n);
    const body = chatBody(MODEL, 'fails before paying');
    const quote = walletQuote(body);
    const recipientBefore = await chain.balanceOf(chain.recipient.address);
    const { call, sent } = client(kasir, payer);
    kasir.openai.setScript({ failure: { kind: 'status', status: 500 } });
    const failed = await call(body);
    kasir.openai.setScript({});
    expect(failed.status).toBe(502);
    expect(failed.headers.get('payment-receipt')).toBeNull();
    expect(failed.headers.get('x-payment-refund')).toBeNull();
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n);
    expect(await chain.balanceOf(chain.recipient.address)).toBe(recipientBefore);
    const usage = await kasir.deps.db.kysely
      .selectFrom('usage_records')
      .select(['status', 'charged_micro_usd', 'tx_id'])
      .where('payer', '=', `did:pkh:eip155:${chain.chainId}:${payer.address.toLowerCase()}`)
      .execute();
    expect(usage).toEqual([{ status: 'voided', charged_micro_usd: 0, tx_id: null }]);

    // Nothing moved, so the same credential may pay the same call again: now it succeeds and pays the quote.
    const credential = sent.find((s) => s.authorization)?.authorization as string;
    const retried = await post(kasir, body, { authorization: credential });
    expect(retried.status).toBe(200);
    expect(await chain.balanceOf(chain.recipient.address)).toBe(recipientBefore + BigInt(quote));
    expect(await chain.balanceOf(payer.address)).toBeLessThanOrEqual(5_000_000n - BigInt(quote));
  });

  it('refunds a push payment whose call failed: exactly the quote goes back to the payer, on-chain', async () => {
    const payer = await chain.fundPayer(5_000_000n);
    const body = chatBody(MODEL, 'pushed then failed');
    const quote = BigInt(walletQuote(body));
    const mppx = Mppx.create({
      polyfill: false,
      methods: [
        tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client, mode: 'push' }),
      ],
    });
    // The client broadcasts the payment itself while making the credential.
    const credential = await mppx.createCredential(await post(kasir, body));
    const paid = await chain.balanceOf(payer.address);
    expect(paid).toBeLessThanOrEqual(5_000_000n - quote);
    kasir.openai.setScript({ failure: { kind: 'status', status: 500 } });
    const failed = await post(kasir, body, { authorization: credential });
    kasir.openai.setScript({});
    expect(failed.status).toBe(502);
    const refundTx = failed.headers.get('x-payment-refund') as `0x${string}`;
    expect(refundTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(payer.address)).toBe(paid + quote);
    const [refund] = await transfersOf(refundTx);
    expect(refund).toMatchObject({ to: payer.address, amount: quote });
    // Spent: the same payment cannot buy the call again.
    const again = await post(kasir, body, { authorization: credential });
    expect(again.status).toBe(402);
    expect(await chain.balanceOf(payer.address)).toBe(paid + quote);
  });

  it('asks for pull only where no refund wallet is set, and refuses a pushed payment there', async () => {
    const body = chatBody(MODEL, 'pull only');
    const unpaid = await post(sponsored, body);
    const [challenge] = Challenge.fromHeadersList(unpaid.headers).filter((c) => c.method === 'tempo');
    expect(challenge?.request.methodDetails).toMatchObject({ supportedModes: ['pull'] });
    expect(
      Challenge.fromHeadersList((await post(kasir, body)).headers).find((c) => c.method === 'tempo')?.request
        .methodDetails,
    ).toMatchObject({ supportedModes: ['pull', 'push'] });
    // A payment the payer broadcast itself, presented as a push credential: refused, nothing runs.
    const payer = await chain.fundPayer(5_000_000n);
    const pushed = await post(kasir, body);
    const pushCredential = await Mppx.create({
      polyfill: false,
      methods: [
        tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client, mode: 'push' }),
      ],
    }).createCredential(pushed);
    const { payload, source } = Credential.deserialize(pushCredential);
    const forged = Credential.serialize({ challenge: challenge as Challenge.Challenge, payload, source });
    const calls = sponsored.openai.requests.length;
    const refused = await post(sponsored, body, { authorization: forged });
    expect(refused.status).toBe(402);
    expect(sponsored.openai.requests.length).toBe(calls);
  });
});

describe.runIf(postgresUp)('MPP Tempo charge with two instances on one PostgreSQL', () => {
  it('lets one credential pay one call, however the requests race across instances', async () => {
    const pg = await freshPostgres();
    const chain = await startTempoDevnet();
    const env = {
      DATABASE_URL: pg.url,
      ...tempoChargeEnv(chain),
      PUBLIC_BASE_URL: URL_BASE,
    };
    const [one, two] = await startTwoPaidKasirs('postgres', env);
    try {
      for (let round = 0; round < 3; round++) {
        const body = JSON.stringify(chatBody(MODEL, `race ${round}`));
        const post = (k: PaidKasir, headers: Record<string, string> = {}) =>
          postJson(k, `${URL_BASE}/v1/chat/completions`, body, headers);
        // Issued by one instance, paid to either: they share the secret and the replay store.
        const payer = await chain.fundPayer();
        const mppx = Mppx.create({
          polyfill: false,
          methods: [tempo({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client })],
        });
        const credential = await mppx.createCredential(await post(one));
        const before = await chain.balanceOf(chain.recipient.address);
        const calls = one.openai.requests.length;
        const answers = await Promise.all(
          [one, two, one, two].map((k) => post(k, { authorization: credential })),
        );
        expect(answers.map((r) => r.status).sort()).toEqual([200, 402, 402, 402]);
        expect(one.openai.requests.length).toBe(calls + 1);
        const quote = one.quote(JSON.parse(body));
        expect(await chain.balanceOf(chain.recipient.address)).toBe(before + BigInt(quote));
      }
    } finally {
      await two.stop();
      await one.stop();
      await chain.stop();
      await pg.drop();
    }
  }, 90_000);
});
