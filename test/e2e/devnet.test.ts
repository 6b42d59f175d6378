// `npx kasir devnet` as a newcomer uses it: start it, read its one JSON line (and the env and JSON files it writes
// atomically), start kasir with that env, pay a call with @x402/fetch, stop it with SIGTERM (the files go with it).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { x402Client } from '@x402/core/client';
import { toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { Mppx, tempo } from 'mppx/client';
import { createClient, createPublicClient, defineChain, http, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempoLocalnet } from 'viem/chains';
import { afterAll, describe, expect, it } from 'vitest';
import { devnetChain, erc20BalanceOf } from '../../src/devnet/evm.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface DevnetLine {
  env: Record<string, string>;
  evm: {
    rpcUrl: string;
    network: string;
    chainId: number;
    asset: `0x${string}`;
    payTo: `0x${string}`;
    payer: { address: `0x${string}`; privateKey: `0x${string}` };
  };
  tempo: {
    rpcUrl: string;
    chainId: number;
    currency: `0x${string}`;
    recipient: `0x${string}`;
    payers: Array<{ address: `0x${string}`; privateKey: `0x${string}` }>;
  };
}

describe('npx kasir devnet', () => {
  let devnet: ChildProcess | undefined;
  let kasir: PaidKasir | undefined;
  afterAll(async () => {
    await kasir?.stop();
    if (devnet && devnet.exitCode === null) devnet.kill('SIGKILL');
  });

  it('prints one JSON line with what kasir and a payer need, and a call is paid on it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kasir-devnet-'));
    const envFile = path.join(dir, 'data', 'devnet.env');
    const jsonFile = path.join(dir, 'data', 'devnet.json');
    const args = ['devnet', '--env-out', envFile, '--json-out', jsonFile];
    devnet = spawn(process.execPath, [path.join(root, 'bin/kasir.js'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [first] = (await once(
      createInterface({ input: devnet.stdout as NodeJS.ReadableStream }),
      'line',
    )) as [string];
    const line = JSON.parse(first) as DevnetLine;
    expect(line.evm.network).toBe(`eip155:${line.evm.chainId}`);
    expect(line.env.X402_BASE_RPC_URL).toBe(line.evm.rpcUrl);
    // The files hold the same settings, whole; the local model answers at SELF_HOSTED_BASE_URL.
    expect(parseEnv(readFileSync(envFile, 'utf8'))).toEqual(line.env);
    expect(JSON.parse(readFileSync(jsonFile, 'utf8'))).toEqual(line);
    const models = await fetch(`${line.env.SELF_HOSTED_BASE_URL}/models`);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe('kasir-devnet-echo');

    kasir = await startPaidKasir('sqlite', line.env);
    const app = kasir.app;
    const publicClient = createPublicClient({
      chain: devnetChain(line.evm.chainId, line.evm.rpcUrl),
      transport: http(line.evm.rpcUrl),
    });
    const client = registerExactEvmScheme(new x402Client().setSpendControls(false), {
      signer: toClientEvmSigner(privateKeyToAccount(line.evm.payer.privateKey), publicClient),
    });
    const payingFetch = wrapFetchWithPayment(
      async (input, init) => app.request(input as Request, init),
      client,
    );
    const before = await erc20BalanceOf(line.evm.rpcUrl, line.evm.asset, line.evm.payer.address);
    const { model: _m, ...body } = chatBody('openai/gpt-4.1-mini', 'Hello from the devnet');
    const res = await payingFetch('http://kasir.test/x402/openai/gpt-4.1-mini', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { costMicroUsd: number };
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response') as string);
    expect(settled.success).toBe(true);
    const after = await erc20BalanceOf(line.evm.rpcUrl, line.evm.asset, line.evm.payer.address);
    expect(before - after).toBe(BigInt(json.costMicroUsd));
    expect(await erc20BalanceOf(line.evm.rpcUrl, line.evm.asset, line.evm.payTo)).toBe(
      BigInt(json.costMicroUsd),
    );

    // MPP: the real mppx client pays a /v1 call on the devnet's Tempo chain with one of its payers.
    expect(line.tempo.payers.length).toBeGreaterThanOrEqual(3);
    expect(line.env.MPP_TEMPO_RPC_URL).toBe(line.tempo.rpcUrl);
    // Payment channels are on, on the TIP-1034 escrow the devnet's node has at the precompile's address.
    expect(line.env.MPP_CHANNEL_ESCROW).toBe('0x4d50500000000000000000000000000000000000');
    expect(line.env.MPP_CHANNEL_OPERATOR_KEY).toMatch(/^0x[0-9a-f]{64}$/);
    const tempoChain = defineChain({
      ...tempoLocalnet,
      id: line.tempo.chainId,
      rpcUrls: { default: { http: [line.tempo.rpcUrl] } },
    });
    const tempoClient = createClient({ chain: tempoChain, transport: http(line.tempo.rpcUrl) });
    const mppx = Mppx.create({
      polyfill: false,
      methods: [
        tempo({
          account: privateKeyToAccount(line.tempo.payers[0]?.privateKey as `0x${string}`),
          getClient: () => tempoClient,
        }),
      ],
      fetch: async (input: string | URL | Request, init?: RequestInit) => app.request(String(input), init),
    });
    const received = async () =>
      createPublicClient({ chain: tempoChain, transport: http(line.tempo.rpcUrl) }).readContract({
        address: line.tempo.currency,
        abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
        functionName: 'balanceOf',
        args: [line.tempo.recipient],
      });
    // The payout wallet starts funded (it sends refunds and pays their fees): it gains exactly the cost.
    const receivedBefore = await received();
    const mppPaid = await mppx.fetch('http://kasir.test/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody('openai/gpt-4.1-mini', 'Hello over MPP')),
    });
    expect(mppPaid.status).toBe(200);
    expect(mppPaid.headers.get('payment-receipt')).toBeTruthy();
    const { costMicroUsd } = (await mppPaid.json()) as { costMicroUsd: number };
    expect(await received()).toBe(receivedBefore + BigInt(costMicroUsd));

    devnet.kill('SIGTERM');
    const [code] = (await once(devnet, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(existsSync(envFile) || existsSync(jsonFile)).toBe(false);
  }, 90_000);
});
