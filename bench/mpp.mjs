// The MPP rail's cost, in one run on a local Tempo-mode chain (anvil --network tempo, the devnet's settings):
//   1. Tempo charge verify-and-broadcast per second with mppx's server in-process (what kasir runs), in sequence;
//   2. a built kasir: the same chat call paid by MPP (a fresh credential per call, signed beforehand) against paid by
//      a key, closed loop with 4 callers each (latency and calls per second).
//
//   npm run build && node bench/mpp.mjs        (BENCH_MPP_CALLS: payments per part, default 100)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Challenge, Credential } from 'mppx';
import { Mppx as MppxClient, tempo as tempoClient } from 'mppx/client';
import { Mppx, Store, tempo } from 'mppx/server';
import { request } from 'undici';
import { privateKeyToAccount } from 'viem/accounts';
import { closedLoop, perSecond } from './lib/closed-loop.mjs';
import { keyWith, startChatKasir } from './lib/funded-kasir.mjs';
import { cleanupOnExit, requireBuild, root } from './lib/harness.mjs';

requireBuild();
const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;
const { startTempoDevnet } = await import(dist('devnet/tempo.js'));
const { mppEnv } = await import(dist('devnet/command.js'));
const CALLS = Number(process.env.BENCH_MPP_CALLS ?? 100);

const chain = await startTempoDevnet();
const children = [];
cleanupOnExit(children);

/** A credential answering `challengeResponse` (a 402) from a fresh funded payer (anvil: one payment per sender). */
async function credentialFor(challengeResponse) {
  const payer = await chain.fundPayer(10_000_000n);
  const client = MppxClient.create({
    polyfill: false,
    methods: [tempoClient({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client })],
  });
  return client.createCredential(challengeResponse.clone());
}

try {
  // Part 1: mppx's Tempo charge alone (verify, broadcast, wait for the receipt), payments in sequence.
  const server = Mppx.create({
    methods: [
      tempo.charge({
        currency: chain.currency,
        recipient: chain.recipient.address,
        chainId: chain.chainId,
        getClient: chain.client,
        store: Store.memory(),
      }),
    ],
    secretKey: 'bench-secret-bench-secret-bench-secret',
    realm: 'bench',
  });
  const credentials = [];
  for (let i = 0; i < CALLS; i++) {
    const challenge = await server.challenge.tempo.charge({ amount: '0.001' });
    const res = new Response(null, {
      status: 402,
      headers: { 'www-authenticate': Challenge.serialize(challenge) },
    });
    credentials.push(Credential.deserialize(await credentialFor(res)));
  }
  const t = performance.now();
  for (const c of credentials) await server.broadcastCredential(c);
  const verifyMs = performance.now() - t;
  console.log(`\nmppx Tempo charge on the local chain, ${CALLS} payments in sequence`);
  console.log(
    `verify + broadcast + receipt  ${perSecond(CALLS, verifyMs).toFixed(0).padStart(6)} /s   ${(verifyMs / CALLS).toFixed(1)} ms each`,
  );

  // Part 2: kasir.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
  const { kasir } = await startChatKasir(children, dataDir, mppEnv(chain));
  const v1 = '/v1/chat/completions';
  const chatV1 = JSON.stringify({
    model: 'openai/gpt-4.1-mini',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 64,
  });
  const post = async (headers = {}) => {
    const res = await request(`${kasir.url}${v1}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: chatV1,
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  const key = await keyWith(kasir, 1e12);
  const loop = (call) => closedLoop(CALLS, call);
  const prepaid = await loop(() => post({ authorization: `Bearer ${key}` }));
  // Signed before the clock starts: what is measured is kasir's part (verify and broadcast, run), not the wallet's.
  const signed = [];
  for (let i = 0; i < CALLS; i++) {
    const unpaid = await post();
    const headers = new Headers();
    for (const [k, v] of Object.entries(unpaid.headers))
      headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    signed.push(await credentialFor(new Response(unpaid.body, { status: 402, headers })));
  }
  const mpp = await loop(() => post({ authorization: signed.pop() }));
  console.log(
    `\nThe same chat call, ${CALLS} calls by 4 callers in a closed loop (MPP: a fresh credential per call, signed beforehand)`,
  );
  for (const [name, r] of [
    ['prepaid key', prepaid],
    ['MPP Tempo charge (verify, broadcast, run)', mpp],
  ]) {
    console.log(
      `${name.padEnd(44)} ${r.rate.toFixed(0).padStart(6)} calls/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`,
    );
  }
  console.log(
    `MPP / prepaid: throughput ${(mpp.rate / prepaid.rate).toFixed(2)}×, p50 latency +${(mpp.p50 - prepaid.p50).toFixed(1)} ms`,
  );
  rmSync(dataDir, { recursive: true, force: true });
} finally {
  for (const c of children) c.child.kill('SIGTERM');
  await chain.stop();
}
