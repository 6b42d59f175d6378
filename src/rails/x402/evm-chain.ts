/**
 * An EVM chain (Base, BNB Smart Chain, a local devnet) on the x402 rail, `exact` scheme: the payer signs and the
 * operator's facilitator pays the gas. A token with EIP-3009 `transferWithAuthorization` (USDC, USD1) is paid by
 * authorization (its EIP-712 name and version read from the token); any other ERC-20 (USDT and USDC on BNB Smart
 * Chain) through Permit2 — the payer approves Permit2 once, then signs a Permit2 witness transfer that x402's
 * exact Permit2 proxy settles — offered only where Permit2 and that proxy are deployed. A token that can be paid
 * neither way is left out (and logged) at the first read.
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { PERMIT2_ADDRESS, toFacilitatorEvmSigner, x402ExactPermit2ProxyAddress } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import {
  createNonceManager,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseAbi,
  parseEventLogs,
  publicActions,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import type { X402ChainConfig } from '../../config/x402.js';
import type { Logger } from '../../http/logger.js';
import { type AcceptedAsset, type Chain, localFacilitator, memoRetry } from './chain.js';

const TOKEN_ABI = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** How far back (in blocks) a settled authorization is looked for: some hours on Base, more than any payment lives. */
const SETTLEMENT_LOOKBACK_BLOCKS = 10_000n;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const ZERO_NONCE = `0x${'0'.repeat(64)}` as const;

function viemChain(config: X402ChainConfig) {
  const id = Number(config.network.slice('eip155:'.length));
  return defineChain({
    id,
    name: config.network,
    nativeCurrency: { name: 'native', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
}

export function openEvmChain(config: X402ChainConfig, log?: Logger): Chain {
  const chain = viemChain(config);
  // No retries inside viem: a failed settlement is answered at once, and the payer may send its payment again.
  const transport = http(config.rpcUrl, { retryCount: 0, timeout: 30_000 });
  const reader = createPublicClient({ chain, transport });

  /** Whether Permit2 and x402's exact Permit2 proxy both have code on this chain. */
  const permit2Ready = memoRetry(async () => {
    const codes = await Promise.all(
      [PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress].map((address) => reader.getCode({ address })),
    );
    return codes.every((code) => code !== undefined && code !== '0x');
  });

  const readAsset = async (asset: string): Promise<AcceptedAsset> => {
    const address = asset as `0x${string}`;
    const read = <T>(functionName: 'name' | 'version' | 'decimals') =>
      reader.readContract({ address, abi: TOKEN_ABI, functionName }) as Promise<T>;
    const decimals = Number(await read<number>('decimals'));
    const eip3009 = await reader
      .readContract({
        address,
        abi: TOKEN_ABI,
        functionName: 'authorizationState',
        args: [ZERO_ADDRESS, ZERO_NONCE],
      })
      .then(
        () => true,
        () => false,
      );
    if (eip3009) {
      const [name, version] = await Promise.all([read<string>('name'), read<string>('version')]);
      return { asset: address, decimals, extra: { name, version } };
    }
    if (await permit2Ready()) return { asset: address, decimals, extra: { assetTransferMethod: 'permit2' } };
    throw new Error(
      `${asset} on ${config.network} has no EIP-3009 transferWithAuthorization, and Permit2 with x402's exact ` +
        `Permit2 proxy (${x402ExactPermit2ProxyAddress}) is not deployed there: payers could not pay it without gas`,
    );
  };

  /** The assets that can be paid; at least one, else the chain's offer fails (and is read again next time). */
  const readAssets = async () => {
    const read = await Promise.allSettled(config.assets.map(readAsset));
    const usable: AcceptedAsset[] = [];
    for (const [i, outcome] of read.entries()) {
      if (outcome.status === 'fulfilled') usable.push(outcome.value);
      else log?.error({ err: outcome.reason, asset: config.assets[i] }, 'x402: an asset is left out');
    }
    const first = read.find((o) => o.status === 'rejected');
    if (usable.length === 0 && first) throw (first as PromiseRejectedResult).reason;
    return usable;
  };

  let facilitator: Chain['facilitator'];
  if (config.facilitatorUrl) {
    facilitator = new HTTPFacilitatorClient({ url: config.facilitatorUrl });
  } else {
    // Settlements run concurrently: the nonce manager hands each of this signer's transactions its own nonce.
    const account = privateKeyToAccount(config.signerKey as `0x${string}`, {
      nonceManager: createNonceManager({ source: jsonRpc() }),
    });
    // A settlement waits for its receipt: ask every 250 ms rather than viem's default 4 s for a chain it does not
    // know (a settlement that just missed a block would otherwise add 4 s to its call).
    const wallet = createWalletClient({ account, chain, transport, pollingInterval: 250 }).extend(
      publicActions,
    );
    const signer = toFacilitatorEvmSigner({
      address: account.address,
      getCode: (args) => wallet.getCode(args),
      readContract: (args) => wallet.readContract(args as Parameters<typeof wallet.readContract>[0]),
      verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
      writeContract: (args) =>
        wallet.writeContract(args as unknown as Parameters<typeof wallet.writeContract>[0]),
      sendTransaction: (args) => wallet.sendTransaction(args),
      waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    });
    const fac = new x402Facilitator();
    registerExactEvmScheme(fac, { signer, networks: config.network as `${string}:${string}` });
    facilitator = localFacilitator(fac);
  }

  /**
   * An EIP-3009 payment's settlement: its authorization used on the token (`authorizationState`), in a transaction
   * whose AuthorizationUsed event names its payer and nonce and which transferred exactly the required amount from the
   * payer to the pay-to (a payer could sign another authorization with the same nonce: only this one counts), and
   * the payload carrying the payer's signature of that very transfer (so no one else can claim it). Permit2 payments
   * are not looked up (null).
   */
  const settlementOf = async (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const body = payload.payload as {
      signature?: unknown;
      authorization?: Record<string, unknown>;
    };
    const auth = body.authorization;
    if (
      typeof auth?.from !== 'string' ||
      typeof auth.nonce !== 'string' ||
      typeof body.signature !== 'string'
    )
      return null;
    const asset = requirements.asset as `0x${string}`;
    const from = auth.from as `0x${string}`;
    const nonce = auth.nonce as `0x${string}`;
    const extra = requirements.extra as { name?: unknown; version?: unknown } | undefined;
    if (typeof extra?.name !== 'string' || typeof extra.version !== 'string') return null;
    // Only the payer's own signature of this transfer to the pay-to names the settlement found below as its own.
    const signed = await reader
      .verifyTypedData({
        address: from,
        domain: { name: extra.name, version: extra.version, chainId: chain.id, verifyingContract: asset },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'TransferWithAuthorization',
        message: {
          from,
          to: requirements.payTo as `0x${string}`,
          value: BigInt(requirements.amount),
          validAfter: BigInt(String(auth.validAfter)),
          validBefore: BigInt(String(auth.validBefore)),
          nonce,
        },
        signature: body.signature as `0x${string}`,
      })
      .catch(() => false);
    if (!signed) return null;
    const used = await reader.readContract({
      address: asset,
      abi: TOKEN_ABI,
      functionName: 'authorizationState',
      args: [from, nonce],
    });
    if (!used) return null;
    // Not viem's cached block number: the settlement may be in the block just mined.
    const latest = await reader.getBlockNumber({ cacheTime: 0 });
    const logs = await reader.getContractEvents({
      address: asset,
      abi: TOKEN_ABI,
      eventName: 'AuthorizationUsed',
      args: { authorizer: from, nonce },
      fromBlock: latest > SETTLEMENT_LOOKBACK_BLOCKS ? latest - SETTLEMENT_LOOKBACK_BLOCKS : 0n,
      toBlock: 'latest',
    });
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    for (const log of logs) {
      const receipt = await reader.getTransactionReceipt({ hash: log.transactionHash });
      if (receipt.status !== 'success') continue;
      const paid = parseEventLogs({ abi: TOKEN_ABI, logs: receipt.logs, eventName: 'Transfer' }).some(
        (t) =>
          same(t.address, asset) &&
          same(t.args.from, from) &&
          same(t.args.to, requirements.payTo) &&
          t.args.value === BigInt(requirements.amount),
      );
      if (paid) return log.transactionHash;
    }
    return null;
  };

  return {
    config,
    assets: memoRetry(readAssets),
    facilitator,
    serverScheme: new ExactEvmScheme(),
    settlementOf,
  };
}
