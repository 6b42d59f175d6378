/**
 * The chain side of payment channels, behind one interface: read a channel's descriptor and state, close it with
 * the highest voucher. The Tempo implementation uses mppx's TIP-1034 escrow primitives (the precompile's ABI,
 * reads and transactions); tests use an in-process fake with the same behaviour.
 */
import { Session } from 'mppx/tempo';
import { createClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getCode } from 'viem/actions';
import { tempo as tempoMainnet } from 'viem/chains';
import type { MppChannelConfig, MppTempoConfig } from '../../config/mpp.js';
import { ApiError } from '../../http/errors.js';

export type ChannelDescriptor = Session.Precompile.Channel.ChannelDescriptor;

export interface ChannelState {
  deposit: bigint;
  settled: bigint;
  /** Unix seconds; 0 while no close was requested. */
  closeRequestedAt: number;
}

export interface ChannelBackend {
  readonly chainId: number;
  readonly escrow: `0x${string}`;
  /** The channel id of a descriptor on this chain and escrow. */
  idOf(descriptor: ChannelDescriptor): `0x${string}`;
  /** The channel's state on chain, or null when no such channel is open. */
  state(descriptor: ChannelDescriptor): Promise<ChannelState | null>;
  /** Closes the channel: pays `capture` of the `cumulative` voucher to the payee, the rest back to the payer. */
  close(
    descriptor: ChannelDescriptor,
    cumulative: bigint,
    capture: bigint,
    signature: `0x${string}`,
  ): Promise<string>;
}

export function tempoChannelBackend(tempo: MppTempoConfig, channels: MppChannelConfig): ChannelBackend {
  const chain = defineChain({
    ...tempoMainnet,
    id: tempo.chainId,
    rpcUrls: { default: { http: [tempo.rpcUrl] } },
  });
  const client = createClient({
    chain,
    transport: http(tempo.rpcUrl),
    account: privateKeyToAccount(channels.operatorKey),
  });
  const { Chain, Channel } = Session.Precompile;
  /**
   * A chain call that failed, as an answer: 503 when the node has no escrow at the configured address (a node
   * without the TIP-1034 precompile, or MPP_CHANNEL_ESCROW pointing elsewhere), 502 when the node failed.
   */
  const chainError = async (what: string, err: unknown): Promise<never> => {
    const code = await getCode(client, { address: channels.escrow }).catch(() => null);
    if (code === undefined || code === '0x')
      throw new ApiError(
        'not_configured',
        `payment channels are misconfigured: no escrow contract at ${channels.escrow} on chain ${tempo.chainId} (MPP_CHANNEL_ESCROW)`,
      );
    const reason =
      err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err);
    throw new ApiError('upstream_error', `the Tempo node could not ${what}: ${reason}`);
  };
  return {
    chainId: tempo.chainId,
    escrow: channels.escrow,
    idOf: (descriptor) =>
      Channel.computeId({ ...descriptor, chainId: tempo.chainId, escrow: channels.escrow }),
    async state(descriptor) {
      const { state } = await Chain.getChannel(client, descriptor, channels.escrow).catch((err) =>
        chainError('read the channel', err),
      );
      return state.deposit === 0n && state.settled === 0n ? null : state;
    },
    close: (descriptor, cumulative, capture, signature) =>
      Chain.closeOnChain(client, descriptor, cumulative, capture, signature, channels.escrow).catch((err) =>
        chainError('close the channel', err),
      ),
  };
}
