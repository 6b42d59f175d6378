// The x402 drill: paid calls on the devnet's EVM chain (anvil and its EIP-3009 TestUSDC, as `npx kasir devnet` runs
// them), each with its own payment signed by the stock @x402/evm client, through the wallet drill (wallet-drill.mjs:
// two instances on PostgreSQL, one killed each round, undelivered payments sent again). On chain: a payment is
// settled when its authorization is used; an answer's transaction must move exactly that payment to the pay-to.
//
//   node test/drills/x402.mjs --rounds 3 --replace
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http, parseAbi, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { arg, between, dist, fakeOpenAi, isMain, withDrill } from './harness.mjs';
import { errorCode, printWallet, runWalletDrill } from './wallet-drill.mjs';

const tokenAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

export function runX402Drill({
  rounds = 5,
  connections = 8,
  replace = false,
  log = (line) => console.error(line),
  /** A test's signal: the drill stops its processes and rejects when it aborts (see withDrill). */
  signal,
} = {}) {
  return withDrill('postgres', signal, async (space) => {
    const { startEvmDevnet, devnetChain } = await import(dist('devnet/evm.js'));
    const { kasirEnv } = await import(dist('devnet/command.js'));
    const evm = await startEvmDevnet();
    space.atEnd(() => evm.stop());
    const upstream = await fakeOpenAi(space);
    const publicClient = createPublicClient({
      chain: devnetChain(evm.chainId, evm.rpcUrl),
      transport: http(evm.rpcUrl),
    });
    const client = registerExactEvmScheme(new x402Client().setSpendControls(false), {
      signer: toClientEvmSigner(privateKeyToAccount(evm.payer.privateKey), publicClient),
    });
    const same = (a, b) => a.toLowerCase() === b.toLowerCase();
    return runWalletDrill(
      space,
      {
        name: 'x402',
        route: '/x402/openai/gpt-4.1-mini',
        env: { ...kasirEnv(evm), OPENAI_API_KEY: 'sk-drill', OPENAI_BASE_URL: `${upstream.url}/v1` },
        body: (n) =>
          JSON.stringify({
            messages: [{ role: 'user', content: `x402 drill ${n}` }],
            max_tokens: between(16, 128),
          }),
        async pay(challenge) {
          const payload = await client.createPaymentPayload(
            decodePaymentRequiredHeader(challenge.headers['payment-required']),
          );
          const auth = payload.payload.authorization;
          return {
            headers: { 'payment-signature': encodePaymentSignatureHeader(payload) },
            from: auth.from,
            nonce: auth.nonce,
            amount: BigInt(payload.accepted.amount),
          };
        },
        receiptOf(res) {
          if (res.status !== 200) return null;
          try {
            return JSON.parse(res.text).receipt?.transaction ?? null;
          } catch {
            return null;
          }
        },
        // Still held by its call (or its dead instance's, until a sweeper lets it go).
        waitOn: (res) => res.status === 402 && errorCode(res) === 'payment_in_progress',
        settledOnChain: (p) =>
          publicClient.readContract({
            address: evm.asset,
            abi: tokenAbi,
            functionName: 'authorizationState',
            args: [p.from, p.nonce],
          }),
        async pays(p, tx) {
          const receipt = await publicClient.getTransactionReceipt({ hash: tx });
          const transfers = parseEventLogs({
            abi: tokenAbi,
            logs: receipt.logs,
            eventName: 'Transfer',
          }).filter((l) => same(l.address, evm.asset));
          return (
            receipt.status === 'success' &&
            transfers.length === 1 &&
            same(transfers[0].args.from, p.from) &&
            same(transfers[0].args.to, evm.payTo) &&
            transfers[0].args.value === p.amount
          );
        },
        received: () =>
          publicClient.readContract({
            address: evm.asset,
            abi: tokenAbi,
            functionName: 'balanceOf',
            args: [evm.payTo],
          }),
      },
      { rounds, connections, replace, log },
    );
  });
}

export const printX402 = (rows) => printWallet('x402', rows);

if (isMain(import.meta.url)) {
  const rows = await runX402Drill({
    rounds: Number(arg('rounds', 5)),
    connections: Number(arg('connections', 8)),
    replace: process.argv.includes('--replace'),
  });
  printX402(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
