// A local EVM chain for x402: anvil with a deployed EIP-3009 TestUSDC, a facilitator key that pays gas, and a funded payer.
import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseAbi,
  publicActions,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from './anvil.js';

export interface DevnetKey {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

export interface EvmDevnetOptions {
  chainId?: number;
  tokenName?: string;
  tokenVersion?: string;
  decimals?: number;
  /** Token base units minted to `payer`; 1,000 whole tokens by default. */
  payerFunds?: bigint;
}

export interface EvmDevnet {
  rpcUrl: string;
  chainId: number;
  network: `eip155:${number}`;
  /** The TestUSDC contract. */
  asset: `0x${string}`;
  decimals: number;
  tokenName: string;
  tokenVersion: string;
  /** Deployed the token; the only key that can mint. */
  deployer: DevnetKey;
  /** Holds ETH and settles payments (pays the gas of transferWithAuthorization). */
  facilitator: DevnetKey;
  /** A fresh address that receives payments. */
  payTo: `0x${string}`;
  /** A fresh key holding `payerFunds` tokens and no ETH (EIP-3009 payments are gasless for the payer). */
  payer: DevnetKey;
  stop(): Promise<void>;
}

// anvil's dev accounts 0 and 1 (mnemonic "test test ... junk"): public keys, for local chains only.
const DEV_KEYS: readonly `0x${string}`[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
];

const erc20Abi = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function mint(address to, uint256 value)',
]);

let artifact: { abi: Abi; bytecode: Hex } | undefined;

/** The compiled TestUSDC (src/devnet/test-usdc.json, built by scripts/build-contracts.mjs). */
export function testUsdcArtifact(): { abi: Abi; bytecode: Hex } {
  artifact ??= JSON.parse(readFileSync(new URL('./test-usdc.json', import.meta.url), 'utf8')) as {
    abi: Abi;
    bytecode: Hex;
  };
  return artifact;
}

/** A viem chain for the devnet's node. */
export function devnetChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `kasir devnet ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** A wallet client with public actions for `privateKey`, polling fast since anvil mines each transaction at once. */
export function devnetClient(chain: { chainId: number; rpcUrl: string }, privateKey: `0x${string}`) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: devnetChain(chain.chainId, chain.rpcUrl),
    transport: http(chain.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
}

export function newKey(): DevnetKey {
  const privateKey = generatePrivateKey();
  return { address: privateKeyToAccount(privateKey).address, privateKey };
}

function devKey(index: number): DevnetKey {
  const privateKey = DEV_KEYS[index];
  if (privateKey === undefined) throw new Error(`no anvil dev key ${index}`);
  return { address: privateKeyToAccount(privateKey).address, privateKey };
}

/** Starts anvil, deploys TestUSDC and mints the payer's funds. */
export async function startEvmDevnet(opts: EvmDevnetOptions = {}): Promise<EvmDevnet> {
  const tokenName = opts.tokenName ?? 'USD Coin';
  const tokenVersion = opts.tokenVersion ?? '2';
  const decimals = opts.decimals ?? 6;
  const anvil = await startAnvil({ chainId: opts.chainId ?? 31337 });
  try {
    const deployer = devKey(0);
    const client = devnetClient(anvil, deployer.privateKey);
    const { abi, bytecode } = testUsdcArtifact();
    const hash = await client.deployContract({ abi, bytecode, args: [tokenName, tokenVersion, decimals] });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) {
      throw new Error('TestUSDC deployment failed');
    }
    const devnet: EvmDevnet = {
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      network: `eip155:${anvil.chainId}`,
      asset: receipt.contractAddress,
      decimals,
      tokenName,
      tokenVersion,
      deployer,
      facilitator: devKey(1),
      payTo: newKey().address,
      payer: newKey(),
      stop: anvil.stop,
    };
    await mintTo(devnet, devnet.payer.address, opts.payerFunds ?? 1_000n * 10n ** BigInt(decimals));
    return devnet;
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Mints `amount` base units of the devnet's token to `address` and waits until it is mined. */
export async function mintTo(
  devnet: Pick<EvmDevnet, 'rpcUrl' | 'chainId' | 'asset' | 'deployer'>,
  address: `0x${string}`,
  amount: bigint,
): Promise<void> {
  const client = devnetClient(devnet, devnet.deployer.privateKey);
  const hash = await client.writeContract({
    address: devnet.asset,
    abi: erc20Abi,
    functionName: 'mint',
    args: [address, amount],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`mint to ${address} failed`);
}

/** An ERC-20 balance in base units. */
export async function erc20BalanceOf(
  rpcUrl: string,
  asset: `0x${string}`,
  address: `0x${string}`,
): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}
