// A local Tempo chain for MPP: anvil in Tempo mode (the pathUSD TIP-20 stablecoin at its precompile address), a
// recipient, an optional fee sponsor, funded payers, and the TIP-1034 channel escrow at the precompile's address
// (escrow-node.ts: clients use its RPC front). anvil mines one expiring-nonce payment per sender and drops later
// ones, so each payer is good for one payment (or one channel open): `fundPayer` makes another whenever needed.
import { createClient, defineChain, http, parseAbi, publicActions, walletActions } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempoLocalnet } from 'viem/chains';
import { Actions } from 'viem/tempo';
import { startAnvil } from './anvil.js';
import { startEscrowNode, TIP1034_ESCROW } from './escrow-node.js';
import type { DevnetKey } from './evm.js';

/** pathUSD, the TIP-20 stablecoin every Tempo node has (6 decimals). */
export const PATH_USD = '0x20c0000000000000000000000000000000000000';

// anvil's dev account 0 (mnemonic "test test ... junk"): holds pathUSD on a fresh Tempo-mode node. Local chains only.
const FUNDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface TempoDevnet {
  rpcUrl: string;
  chainId: number;
  currency: `0x${string}`;
  /** The TIP-1034 channel escrow (at the precompile's address, as on Tempo networks). */
  escrow: `0x${string}`;
  /** Receives payments, and sends refunds (MPP_TEMPO_REFUND_KEY): funded for refunds' network fees. */
  recipient: DevnetKey;
  /** Pays payers' network fees when kasir sponsors them (MPP_TEMPO_FEE_PAYER_KEY). */
  feePayer: DevnetKey;
  /** Closes payment channels for the recipient (MPP_CHANNEL_OPERATOR_KEY): funded for network fees. */
  channelOperator: DevnetKey;
  /** A new key holding `amount` pathUSD base units. */
  fundPayer(amount?: bigint): Promise<DevnetKey>;
  balanceOf(address: `0x${string}`): Promise<bigint>;
  /** A viem client on the chain (for mppx's client and server). */
  client(): ReturnType<typeof createClient>;
  stop(): Promise<void>;
}

const balanceAbi = parseAbi(['function balanceOf(address owner) view returns (uint256)']);

const newKey = (): DevnetKey => {
  const privateKey = generatePrivateKey();
  return { privateKey, address: privateKeyToAccount(privateKey).address };
};

export async function startTempoDevnet(options: { chainId?: number } = {}): Promise<TempoDevnet> {
  const anvil = await startAnvil({
    chainId: options.chainId ?? tempoLocalnet.id,
    extraArgs: ['--network', 'tempo'],
  });
  const node = await startEscrowNode(anvil.rpcUrl).catch(async (err) => {
    await anvil.stop();
    throw err;
  });
  const rpcUrl = node.rpcUrl;
  try {
    const chain = defineChain({
      ...tempoLocalnet,
      id: anvil.chainId,
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const client = () => createClient({ chain, transport: http(rpcUrl) });
    const funder = createClient({
      chain,
      transport: http(rpcUrl),
      account: privateKeyToAccount(FUNDER_KEY),
    })
      .extend(publicActions)
      .extend(walletActions);
    const reader = client().extend(publicActions);
    // Funding transfers go one at a time: the funder's own nonces must not race.
    let queue: Promise<unknown> = Promise.resolve();
    const transfer = (to: `0x${string}`, amount: bigint) => {
      const next = queue.then(() => Actions.token.transferSync(funder, { token: PATH_USD, to, amount }));
      queue = next.catch(() => {});
      return next;
    };
    const feePayer = newKey();
    await transfer(feePayer.address, 1_000_000_000n);
    const recipient = newKey();
    await transfer(recipient.address, 1_000_000_000n);
    const channelOperator = newKey();
    await transfer(channelOperator.address, 1_000_000_000n);
    return {
      rpcUrl,
      chainId: anvil.chainId,
      currency: PATH_USD,
      escrow: TIP1034_ESCROW,
      recipient,
      feePayer,
      channelOperator,
      async fundPayer(amount = 100_000_000n) {
        const payer = newKey();
        await transfer(payer.address, amount);
        return payer;
      },
      balanceOf: (address) =>
        reader.readContract({
          address: PATH_USD,
          abi: balanceAbi,
          functionName: 'balanceOf',
          args: [address],
        }),
      client,
      stop: async () => {
        await node.stop();
        await anvil.stop();
      },
    };
  } catch (err) {
    await node.stop();
    await anvil.stop();
    throw err;
  }
}
