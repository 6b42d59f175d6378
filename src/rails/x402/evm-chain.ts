/**
 * An EVM chain (Base, BNB Smart Chain, a local devnet) on the x402 rail: EIP-3009 tokens only, so the payer
 * signs and the operator's facilitator pays the gas. Each token's EIP-712 name and version and its decimals are
 * read from the token itself, and a token without `transferWithAuthorization` is refused at the first read.
 */
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import {
  createNonceManager,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseAbi,
  publicActions,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import type { X402ChainConfig } from '../../config-x402.js';
import { type AcceptedAsset, type Chain, localFacilitator, memoRetry } from './chain.js';

const TOKEN_ABI = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

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

export function openEvmChain(config: X402ChainConfig): Chain {
  const chain = viemChain(config);
  // No retries inside viem: a failed settlement is answered at once, and the payer may send its payment again.
  const transport = http(config.rpcUrl, { retryCount: 0, timeout: 30_000 });
  const reader = createPublicClient({ chain, transport });

  const readAsset = async (asset: string): Promise<AcceptedAsset> => {
    const address = asset as `0x${string}`;
    const read = <T>(functionName: 'name' | 'version' | 'decimals') =>
      reader.readContract({ address, abi: TOKEN_ABI, functionName }) as Promise<T>;
    const [name, version, decimals] = await Promise.all([
      read<string>('name'),
      read<string>('version'),
      read<number>('decimals'),
    ]);
    try {
      await reader.readContract({
        address,
        abi: TOKEN_ABI,
        functionName: 'authorizationState',
        args: [ZERO_ADDRESS, ZERO_NONCE],
      });
    } catch {
      throw new Error(
        `${asset} on ${config.network} has no EIP-3009 transferWithAuthorization: payers could not pay it without gas`,
      );
    }
    return { asset: address, decimals: Number(decimals), extra: { name, version } };
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

  return {
    config,
    assets: memoRetry(() => Promise.all(config.assets.map(readAsset))),
    facilitator,
    serverScheme: new ExactEvmScheme(),
  };
}
