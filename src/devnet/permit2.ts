// Permit2 on a local EVM devnet: the canonical Permit2 runtime (src/devnet/permit2.json, from Uniswap's npm
// package) and kasir's stand-in for x402's exact Permit2 proxy (contracts/ExactPermit2Proxy.sol) set at their
// canonical addresses with anvil_setCode, and TestUSDT, a plain ERC-20 that only Permit2 can move without the
// payer's gas. Permit2 rebuilds its EIP-712 domain for any chain but mainnet, so the canonical code works as is.
import { readFileSync } from 'node:fs';
import { PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress } from '@x402/evm';
import { type Abi, createTestClient, type Hex, http, maxUint256, parseAbi, parseEther } from 'viem';
import { type DevnetKey, devnetClient } from './evm.js';

const json = <T>(file: string): T => JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as T;

const erc20Abi = parseAbi([
  'function mint(address to, uint256 value)',
  'function approve(address spender, uint256 value) returns (bool)',
]);

interface Chain {
  rpcUrl: string;
  chainId: number;
}

/** Puts Permit2 and the exact Permit2 proxy at their canonical addresses. */
export async function installPermit2(chain: Chain): Promise<void> {
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  const permit2 = json<{ runtime: Hex }>('./permit2.json');
  const proxy = json<{ runtime: Hex }>('./exact-permit2-proxy.json');
  for (const [address, code] of [
    [PERMIT2_ADDRESS, permit2.runtime],
    [x402ExactPermit2ProxyAddress, proxy.runtime],
  ] as const) {
    await anvil.setCode({ address, bytecode: code });
  }
}

/** Deploys a TestUSDT (18 decimals, no EIP-3009) with `deployer`; its address. */
export async function deployTestUsdt(chain: Chain, deployer: DevnetKey): Promise<`0x${string}`> {
  const client = devnetClient(chain, deployer.privateKey);
  const { abi, bytecode } = json<{ abi: Abi; bytecode: Hex }>('./test-usdt.json');
  const hash = await client.deployContract({ abi, bytecode });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('TestUSDT deployment failed');
  return receipt.contractAddress;
}

/**
 * Gives `payer` `amount` of the token and the gas for its one-time Permit2 approval, and sends that approval (what a
 * wallet does once per token before its first Permit2 payment).
 */
export async function fundPermit2Payer(
  chain: Chain,
  token: `0x${string}`,
  deployer: DevnetKey,
  payer: DevnetKey,
  amount: bigint,
): Promise<void> {
  const minter = devnetClient(chain, deployer.privateKey);
  await minter.waitForTransactionReceipt({
    hash: await minter.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'mint',
      args: [payer.address, amount],
    }),
  });
  await minter.waitForTransactionReceipt({
    hash: await minter.sendTransaction({ to: payer.address, value: parseEther('1') }),
  });
  const wallet = devnetClient(chain, payer.privateKey);
  const approval = await wallet.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'approve',
      args: [PERMIT2_ADDRESS, maxUint256],
    }),
  });
  if (approval.status !== 'success') throw new Error('the Permit2 approval failed');
}
