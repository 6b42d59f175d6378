// The x402 drill: concurrent paid calls on the devnet's EVM chain (anvil and its EIP-3009 TestUSDC, as
// `npx kasir devnet` runs them), each with its own payment signed by the stock @x402/evm client, on two kasir instances
// sharing one PostgreSQL database; one of them `kill -9`ed at a random moment each round and brought back (with
// `replace`: on a new, empty data folder). Then every payment whose answer was not delivered is sent again, the same
// PAYMENT-SIGNATURE and body, to the instances alive, until it yields the answer or a final refusal.
//
// A round balances when, on chain and in the answers:
// - every payment settled on chain (its EIP-3009 authorization used) yielded its answer, delivered at once or
//   retrieved by sending the same payment again;
// - a payment refused on retry was never settled (its authorization unused on chain);
// - every answer's receipt names a transaction that moved exactly that payment to the pay-to, and no transaction
//   pays two answers;
// - the pay-to received exactly the settled payments' amounts (nothing settled twice, nothing settled unaccounted),
//   and kasir's usage records charge each settled payment once.

import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Agent, request } from 'undici';
import { createPublicClient, http, parseAbi, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  arg,
  between,
  dist,
  fakeOpenAi,
  isMain,
  openDrillDb,
  printTable,
  sleep,
  startCluster,
  withDrill,
} from './harness.mjs';

const ROUTE = '/x402/openai/gpt-4.1-mini';
/** The shortest hold TTL kasir takes: how long a dead instance's payment lock stays before a sweeper lets it go. */
const HOLD_TTL_SECONDS = 30;
const tokenAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** Sends one request; its status, headers and whole body, or the error that cut it (the instance died). */
async function send(url, { body, payment, dispatcher }) {
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...(payment ? { 'payment-signature': payment } : {}) },
      dispatcher,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, error: null };
  } catch (err) {
    return { status: 0, headers: {}, text: '', error: String(err?.code ?? err?.message ?? err) };
  }
}

/** The answer's receipt when it is a whole paid answer, else null. */
function paidReceipt(res) {
  if (res.status !== 200) return null;
  try {
    const body = JSON.parse(res.text);
    return body.receipt?.transaction ? body.receipt : null;
  } catch {
    return null;
  }
}

const errorCode = (res) => {
  try {
    return JSON.parse(res.text).error?.code ?? null;
  } catch {
    return null;
  }
};

export function runX402Drill({
  rounds = 5,
  connections = 8,
  replace = false,
  log = (line) => console.error(line),
} = {}) {
  return withDrill('postgres', async (space) => {
    const { startEvmDevnet, devnetChain } = await import(dist('devnet/evm.js'));
    const { kasirEnv } = await import(dist('devnet/command.js'));
    const evm = await startEvmDevnet();
    space.atEnd(() => evm.stop());
    const upstream = await fakeOpenAi(space);
    const db = await openDrillDb(space.database.url);
    space.atEnd(() => db.close());
    const cluster = await startCluster(space, {
      count: 2,
      env: () => ({
        ...kasirEnv(evm),
        OPENAI_API_KEY: 'sk-drill',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS),
        SWEEP_INTERVAL_SECONDS: '2',
      }),
    });
    const chain = devnetChain(evm.chainId, evm.rpcUrl);
    const publicClient = createPublicClient({ chain, transport: http(evm.rpcUrl) });
    const client = registerExactEvmScheme(new x402Client().setSpendControls(false), {
      signer: toClientEvmSigner(privateKeyToAccount(evm.payer.privateKey), publicClient),
    });
    const payToBalance = () =>
      publicClient.readContract({
        address: evm.asset,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [evm.payTo],
      });
    const used = (p) =>
      publicClient.readContract({
        address: evm.asset,
        abi: tokenAbi,
        functionName: 'authorizationState',
        args: [p.from, p.nonce],
      });
    const startBalance = await payToBalance();

    /** Every payment sent: its header and body, what its first answer was, and its retries'. */
    const payments = [];
    const stats = { sent: 0, refusedUnpaid: 0 };
    const loadOn = (instance) => {
      let running = true;
      const dispatcher = new Agent({ connections, keepAliveTimeout: 10_000 });
      const url = `${instance.url}${ROUTE}`;
      const loop = async () => {
        while (running) {
          const n = ++stats.sent;
          const body = JSON.stringify({
            messages: [{ role: 'user', content: `x402 drill ${n}` }],
            max_tokens: between(16, 128),
          });
          const challenge = await send(url, { body, dispatcher });
          if (challenge.status !== 402) {
            if (challenge.error) await sleep(10);
            continue;
          }
          const required = decodePaymentRequiredHeader(challenge.headers['payment-required']);
          const payload = await client.createPaymentPayload(required);
          const auth = payload.payload.authorization;
          const payment = {
            n,
            header: encodePaymentSignatureHeader(payload),
            body,
            from: auth.from,
            nonce: auth.nonce,
            amount: BigInt(payload.accepted.amount),
            instance: instance.name,
            first: null,
            retries: [],
          };
          payments.push(payment);
          payment.first = await send(url, { body, payment: payment.header, dispatcher });
          payment.receipt = paidReceipt(payment.first);
          if (payment.first.error) await sleep(10);
        }
      };
      const loops = Array.from({ length: connections }, loop);
      return {
        stop: async () => {
          running = false;
          await Promise.all(loops);
          await dispatcher.close();
        },
      };
    };

    /**
     * Sends an undelivered payment again, the same header and body, to the instances alive (in turn), until it yields
     * the answer or a refusal that is final; a payment its dead instance still holds is refused as in progress until
     * a sweeper lets it go (HOLD_TTL_SECONDS), so that is waited out.
     */
    const retry = async (payment, instances, deadline) => {
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        const inst = instances[attempt % instances.length];
        const res = await send(`${inst.url}${ROUTE}`, { body: payment.body, payment: payment.header });
        const code = errorCode(res);
        payment.retries.push({ instance: inst.name, status: res.status, code, error: res.error });
        const receipt = paidReceipt(res);
        if (receipt) {
          payment.receipt = receipt;
          // Its stored answer replayed, or (settled, its answer never stored) made again.
          payment.retrieved = res.headers['idempotent-replayed'] === 'true' ? 'stored' : 'made again';
          return;
        }
        if (res.status === 402 && code !== 'payment_in_progress') return; // refused for good
        await sleep(res.status === 0 ? 200 : 1000);
      }
    };

    const rows = [];
    const counted = new Set(); // payments judged in an earlier round
    for (let round = 1; round <= rounds; round++) {
      const { instances } = cluster;
      const loads = instances.map((inst) => loadOn(inst));
      await sleep(between(1500, 3000));
      const victim = between(0, 2);
      await cluster.kill(victim);
      await loads[victim].stop();
      await sleep(between(100, 500));
      const back = await cluster.restart(victim, { replace });
      loads[victim] = loadOn(back);
      await sleep(between(500, 1000));
      await Promise.all(loads.map((l) => l.stop()));

      const mine = payments.filter((p) => !counted.has(p.n));
      for (const p of mine) counted.add(p.n);
      const undelivered = mine.filter((p) => !p.receipt);
      const deadline = Date.now() + (HOLD_TTL_SECONDS + 20) * 1000;
      await Promise.all(undelivered.map((p) => retry(p, cluster.instances, deadline)));

      // The chain's word on every payment of the round.
      for (const p of mine) p.settled = await used(p);
      const settled = mine.filter((p) => p.settled);
      const delivered = mine.filter((p) => p.receipt && !p.retrieved);
      const retrieved = mine.filter((p) => p.retrieved);
      const lost = settled.filter((p) => !p.receipt);
      const answeredUnsettled = mine.filter((p) => p.receipt && !p.settled);
      const unresolved = undelivered.filter((p) => !p.receipt && !p.settled && !finalRefusal(p));
      // Each answer's transaction moved exactly its payment to the pay-to; no transaction pays two answers.
      const badReceipts = [];
      const txs = new Set();
      for (const p of mine.filter((q) => q.receipt)) {
        const tx = p.receipt.transaction;
        if (txs.has(tx)) badReceipts.push({ n: p.n, tx, why: 'transaction pays another answer too' });
        txs.add(tx);
        const receipt = await publicClient.getTransactionReceipt({ hash: tx });
        const transfers = parseEventLogs({ abi: tokenAbi, logs: receipt.logs, eventName: 'Transfer' }).filter(
          (l) => l.address.toLowerCase() === evm.asset.toLowerCase(),
        );
        const paysIt =
          receipt.status === 'success' &&
          transfers.length === 1 &&
          transfers[0].args.from.toLowerCase() === p.from.toLowerCase() &&
          transfers[0].args.to.toLowerCase() === evm.payTo.toLowerCase() &&
          transfers[0].args.value === p.amount;
        if (!paysIt) badReceipts.push({ n: p.n, tx, why: 'transaction does not move this payment' });
      }
      const allSettled = payments.filter((p) => p.settled);
      const received = (await payToBalance()) - startBalance;
      const owed = allSettled.reduce((a, p) => a + p.amount, 0n);
      const charges = await db.kysely
        .selectFrom('usage_records')
        .select(['tx_id'])
        .where('rail', '=', 'x402')
        .where('charged_micro_usd', '>', 0)
        .execute();
      const chargedTxs = new Set(charges.map((c) => c.tx_id));
      const row = {
        rail: 'x402',
        round,
        killed: `instance ${victim}`,
        payments: mine.length,
        settled: settled.length,
        delivered: delivered.length,
        retrieved: retrieved.length,
        retrievedStored: retrieved.filter((p) => p.retrieved === 'stored').length,
        refusedUnsettled: undelivered.filter((p) => !p.receipt && !p.settled).length,
        lost: lost.length,
        chargedTotal: charges.length,
        settledTotal: allSettled.length,
        receivedBaseUnits: received.toString(),
        settledBaseUnits: owed.toString(),
        equal:
          lost.length === 0 &&
          answeredUnsettled.length === 0 &&
          unresolved.length === 0 &&
          badReceipts.length === 0 &&
          received === owed &&
          charges.length === allSettled.length &&
          chargedTxs.size === charges.length,
      };
      if (!row.equal) {
        const show = (p) => ({
          n: p.n,
          instance: p.instance,
          first: { status: p.first.status, code: errorCode(p.first), error: p.first.error },
          retries: p.retries,
          settled: p.settled,
        });
        row.unexplained = {
          lost: lost.map(show),
          answeredUnsettled: answeredUnsettled.map(show),
          unresolved: unresolved.map(show),
          badReceipts,
          logged: cluster.logs.flat().filter((l) => l.trim() !== ''),
        };
      }
      rows.push(row);
      log(
        `x402 round ${round}: killed ${row.killed}; ${row.payments} payments, settled on chain ${row.settled}, ` +
          `delivered ${row.delivered}, retrieved by retry ${row.retrieved} (stored ${row.retrievedStored}), refused unsettled ${row.refusedUnsettled}, ` +
          `lost ${row.lost}; pay-to received ${row.receivedBaseUnits} for ${row.settledBaseUnits} settled, ` +
          `charged ${row.chargedTotal} for ${row.settledTotal} settled: ${row.equal ? 'equal' : 'NOT EQUAL'}`,
      );
      if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
    }
    log(`x402: ${stats.sent} calls sent`);
    await cluster.stop();
    return rows;
  });
}

/** A retried payment's last answer was a refusal that is final (not "in progress", not a cut connection). */
function finalRefusal(p) {
  const last = p.retries.at(-1);
  return last !== undefined && last.status === 402 && last.code !== 'payment_in_progress';
}

export function printX402(rows) {
  printTable(`x402: ${rows.length} rounds`, rows, [
    ['round', (r) => r.round],
    ['killed', (r) => r.killed],
    ['payments', (r) => r.payments],
    ['settled on chain', (r) => r.settled],
    ['delivered', (r) => r.delivered],
    ['retrieved by retry (stored)', (r) => `${r.retrieved} (${r.retrievedStored})`],
    ['refused, unsettled', (r) => r.refusedUnsettled],
    ['lost', (r) => r.lost],
    [
      'pay-to received = settled',
      (r) => `${r.equal ? 'yes' : 'NO'} (${r.receivedBaseUnits} / ${r.settledBaseUnits})`,
    ],
  ]);
}

if (isMain(import.meta.url)) {
  const rows = await runX402Drill({
    rounds: Number(arg('rounds', 5)),
    connections: Number(arg('connections', 8)),
    replace: process.argv.includes('--replace'),
  });
  printX402(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
