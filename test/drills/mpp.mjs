// The MPP drill: paid calls with MPP's Tempo charge on the devnet's Tempo chain (anvil in Tempo mode, pathUSD, fees
// sponsored by kasir), each paid by its own payer with the stock mppx client (a signed pull transaction kasir
// broadcasts after the call), through the wallet drill (wallet-drill.mjs: two instances on PostgreSQL, one killed each
// round, undelivered payments sent again). Each devnet payer pays once, so every payment has its own payer: it is
// settled when its payer's balance fell by the quote; an answer's Payment-Receipt must name a transaction that moved
// exactly that payment to the recipient.
//
//   node test/drills/mpp.mjs --rounds 3 --replace
import { Credential, Receipt } from 'mppx';
import { Mppx, tempo as tempoMethod } from 'mppx/client';
import { parseAbi, parseEventLogs, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { arg, between, isMain, tempoDrill, withDrill } from './harness.mjs';
import { errorCode, printWallet, runWalletDrill } from './wallet-drill.mjs';

const FUNDS = 100_000_000n;
const transferAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 amount)']);

/** undici's headers as a fetch Response's (repeated headers joined as HTTP allows). */
function asResponse(res) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers))
    headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  return new Response(res.text, { status: res.status, headers });
}

export function runMppDrill({
  rounds = 5,
  connections = 4,
  replace = false,
  log = (line) => console.error(line),
  /** A test's signal: the drill stops its processes and rejects when it aborts (see withDrill). */
  signal,
} = {}) {
  return withDrill('postgres', signal, async (space) => {
    const { chain, upstream, chargeEnv } = await tempoDrill(space);
    const reader = chain.client().extend(publicActions);
    const same = (a, b) => a.toLowerCase() === b.toLowerCase();
    /** Funded payers not used yet; topped up before each round. */
    const pool = [];
    return runWalletDrill(
      space,
      {
        name: 'mpp',
        route: '/v1/chat/completions',
        env: {
          ...chargeEnv,
          MPP_TEMPO_FEE_PAYER_KEY: chain.feePayer.privateKey,
          OPENAI_API_KEY: 'sk-drill',
          OPENAI_BASE_URL: `${upstream.url}/v1`,
        },
        async beforeRound(n) {
          while (pool.length < 20 * n) pool.push(await chain.fundPayer(FUNDS));
        },
        body: (n) =>
          JSON.stringify({
            model: 'openai/gpt-4.1-mini',
            messages: [{ role: 'user', content: `mpp drill ${n}` }],
            max_tokens: between(16, 128),
          }),
        async pay(challenge) {
          const payer = pool.shift();
          if (!payer) return null;
          const mppx = Mppx.create({
            polyfill: false,
            methods: [
              tempoMethod({ account: privateKeyToAccount(payer.privateKey), getClient: chain.client }),
            ],
          });
          const authorization = await mppx.createCredential(asResponse(challenge));
          const { challenge: paid } = Credential.deserialize(authorization);
          return { headers: { authorization }, payer: payer.address, amount: BigInt(paid.request.amount) };
        },
        receiptOf(res) {
          const header = res.status === 200 ? res.headers['payment-receipt'] : undefined;
          return header ? Receipt.deserialize(String(header)).reference : null;
        },
        waitOn: (res) => res.status === 402 && errorCode(res) === 'payment_in_progress',
        settledOnChain: async (p) => (await chain.balanceOf(p.payer)) !== FUNDS,
        async pays(p, tx) {
          const receipt = await reader.getTransactionReceipt({ hash: tx });
          const fromPayer = parseEventLogs({
            abi: transferAbi,
            logs: receipt.logs,
            eventName: 'Transfer',
          }).filter((l) => same(l.address, chain.currency) && same(l.args.from, p.payer));
          return (
            receipt.status === 'success' &&
            fromPayer.length === 1 &&
            same(fromPayer[0].args.to, chain.recipient.address) &&
            fromPayer[0].args.amount === p.amount
          );
        },
        received: () => chain.balanceOf(chain.recipient.address),
      },
      { rounds, connections, replace, log },
    );
  });
}

export const printMpp = (rows) => printWallet('mpp', rows);

if (isMain(import.meta.url)) {
  const rows = await runMppDrill({
    rounds: Number(arg('rounds', 5)),
    connections: Number(arg('connections', 4)),
    replace: process.argv.includes('--replace'),
  });
  printMpp(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
