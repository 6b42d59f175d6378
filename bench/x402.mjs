// The x402 rail's cost, in one run on a local EVM chain (anvil, the devnet's token):
//   1. verify and settle per second with @x402/evm's facilitator in-process (what kasir runs), payments in sequence;
//   2. a built kasir: the unpaid 402 path and a funded prepaid call under autocannon (requests per second), then
//      the same chat call paid per call by x402 against paid by a key, closed loop with 4 callers each (latency
//      and calls per second; an x402 caller signs a fresh payment for every call, as a wallet does).
//
//   npm run build && node bench/x402.mjs        (BENCH_X402_CALLS: payments per part, default 200)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { x402Client } from '@x402/core/client';
import { x402Facilitator } from '@x402/core/facilitator';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme as registerClient } from '@x402/evm/exact/client';
import { registerExactEvmScheme as registerFacilitator } from '@x402/evm/exact/facilitator';
import autocannon from 'autocannon';
import { request } from 'undici';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { closedLoop, perSecond } from './lib/closed-loop.mjs';
import { keyWith, startChatKasir } from './lib/funded-kasir.mjs';
import { cleanupOnExit, requireBuild, root } from './lib/harness.mjs';

requireBuild();
const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;
const { startEvmDevnet, devnetChain, devnetClient } = await import(dist('devnet/evm.js'));
const { kasirEnv } = await import(dist('devnet/command.js'));
const CALLS = Number(process.env.BENCH_X402_CALLS ?? 200);

const devnet = await startEvmDevnet({ payerFunds: 10n ** 15n });
const children = [];
cleanupOnExit(children);
const payer = registerClient(new x402Client().setSpendControls(false), {
  signer: toClientEvmSigner(
    privateKeyToAccount(devnet.payer.privateKey),
    createPublicClient({ chain: devnetChain(devnet.chainId, devnet.rpcUrl), transport: http(devnet.rpcUrl) }),
  ),
});
const pay = (accepts) =>
  payer.createPaymentPayload({ x402Version: 2, resource: { url: 'http://bench' }, accepts: [accepts] });

try {
  // Part 1: the facilitator alone.
  const wallet = devnetClient(devnet, devnet.facilitator.privateKey);
  const fac = registerFacilitator(new x402Facilitator(), {
    networks: devnet.network,
    signer: toFacilitatorEvmSigner({
      address: wallet.account.address,
      getCode: (a) => wallet.getCode(a),
      readContract: (a) => wallet.readContract(a),
      verifyTypedData: (a) => wallet.verifyTypedData(a),
      writeContract: (a) => wallet.writeContract(a),
      sendTransaction: (a) => wallet.sendTransaction(a),
      waitForTransactionReceipt: (a) => wallet.waitForTransactionReceipt(a),
    }),
  });
  const requirements = {
    scheme: 'exact',
    network: devnet.network,
    asset: devnet.asset,
    amount: '1000',
    payTo: devnet.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: devnet.tokenName, version: devnet.tokenVersion },
  };
  const payments = [];
  for (let i = 0; i < CALLS; i++) payments.push(await pay(requirements));
  let t = performance.now();
  for (const p of payments)
    if (!(await fac.verify(p, requirements)).isValid) throw new Error('verify failed');
  const verifyMs = performance.now() - t;
  t = performance.now();
  for (const p of payments)
    if (!(await fac.settle(p, requirements)).success) throw new Error('settle failed');
  const settleMs = performance.now() - t;
  console.log(`\nThe facilitator on the local chain, ${CALLS} payments in sequence`);
  console.log(
    `verify  ${perSecond(CALLS, verifyMs).toFixed(0).padStart(6)} /s   ${(verifyMs / CALLS).toFixed(1)} ms each`,
  );
  console.log(
    `settle  ${perSecond(CALLS, settleMs).toFixed(0).padStart(6)} /s   ${(settleMs / CALLS).toFixed(1)} ms each`,
  );

  // Part 2: kasir.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
  const { kasir } = await startChatKasir(children, dataDir, kasirEnv(devnet));
  const post = async (route, body, headers = {}) => {
    const res = await request(`${kasir.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  const key = await keyWith(kasir, 1e12);
  const v1 = '/v1/chat/completions';
  const chatV1 = {
    model: 'openai/gpt-4.1-mini',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 64,
  };

  const cannon = (headers) =>
    autocannon({
      url: `${kasir.url}${v1}`,
      connections: 16,
      duration: 5,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(chatV1),
    });
  await cannon({ authorization: `Bearer ${key}` }); // warm-up
  const unpaid = await cannon({});
  const funded = await cannon({ authorization: `Bearer ${key}` });
  console.log('\nkasir, POST /v1/chat/completions on 16 connections, 5 s each');
  console.log(
    `402 (no payment; lists prepaid and x402)  ${unpaid.requests.average.toFixed(0).padStart(6)} req/s  p99 ${unpaid.latency.p99} ms`,
  );
  console.log(
    `funded prepaid call                       ${funded.requests.average.toFixed(0).padStart(6)} req/s  p99 ${funded.latency.p99} ms`,
  );
  console.log(`402 path / funded call: ${(unpaid.requests.average / funded.requests.average).toFixed(2)}×`);

  // x402 against prepaid, closed loop, 4 callers each.
  const required = (await post(v1, chatV1)).headers['payment-required'];
  const accepts = JSON.parse(Buffer.from(required, 'base64').toString('utf8')).accepts[0];
  const loop = (call) => closedLoop(CALLS, call);
  const prepaid = await loop(() => post(v1, chatV1, { authorization: `Bearer ${key}` }));
  // Signed before the clock starts: what is measured is kasir's part (verify, lock, run, settle), not the wallet's.
  const signed = [];
  for (let i = 0; i < CALLS; i++) signed.push(encodePaymentSignatureHeader(await pay(accepts)));
  const x402 = await loop(async () => post(v1, chatV1, { 'payment-signature': signed.pop() }));
  console.log(
    `\nThe same chat call, ${CALLS} calls by 4 callers in a closed loop (x402: a fresh payment per call, signed beforehand)`,
  );
  for (const [name, r] of [
    ['prepaid key', prepaid],
    ['x402 (verify, lock, run, settle on chain)', x402],
  ]) {
    console.log(
      `${name.padEnd(44)} ${r.rate.toFixed(0).padStart(6)} calls/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`,
    );
  }
  console.log(
    `x402 / prepaid: throughput ${(x402.rate / prepaid.rate).toFixed(2)}×, p50 latency +${(x402.p50 - prepaid.p50).toFixed(1)} ms`,
  );
  rmSync(dataDir, { recursive: true, force: true });
} finally {
  for (const c of children) c.child.kill('SIGTERM');
  await devnet.stop();
}
