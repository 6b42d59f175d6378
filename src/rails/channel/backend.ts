/**
 * The chain side of payment channels, behind one interface: broadcast a payer's signed open or top-up transaction
 * (an mppx session credential's), read a channel's state, close it with the highest voucher. The Tempo
 * implementation uses mppx's TIP-1034 escrow primitives (the precompile's ABI, its transaction checks, reads and
 * writes); tests use an in-process fake with the same behaviour.
 */
import { Errors } from 'mppx';
import { Session } from 'mppx/tempo';
import { createClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getCode } from 'viem/actions';
import { tempo as tempoMainnet } from 'viem/chains';
import type { MppChannelConfig, MppTempoConfig } from '../../config/mpp.js';
import { ApiError } from '../../http/errors.js';
import { PaymentRefusal } from '../types.js';

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
  /** The address kasir closes channels with (MPP_CHANNEL_OPERATOR_KEY's): a channel's payee, or its operator. */
  readonly closer: `0x${string}`;
  /** The channel id of a descriptor on this chain and escrow. */
  idOf(descriptor: ChannelDescriptor): `0x${string}`;
  /** The channel's state on chain, or null when no such channel is open. */
  state(descriptor: ChannelDescriptor): Promise<ChannelState | null>;
  /**
   * Broadcasts a payer's signed `open` transaction (checked first against `expect`: this server's payee and
   * currency) and answers the descriptor it opened, once the chain shows the channel.
   */
  broadcastOpen(
    open: ChannelTransaction,
    expect: { payee: string; token: string },
  ): Promise<ChannelDescriptor>;
  /** Broadcasts a payer's signed `topUp` transaction for the channel of `descriptor`. */
  broadcastTopUp(topUp: ChannelTransaction & { additionalDeposit: bigint }): Promise<void>;
  /** Closes the channel: pays `capture` of the `cumulative` voucher to the payee, the rest back to the payer. */
  close(
    descriptor: ChannelDescriptor,
    cumulative: bigint,
    capture: bigint,
    signature: `0x${string}`,
  ): Promise<string>;
}

/** A payer's signed channel transaction, as an mppx session credential carries it. */
export interface ChannelTransaction {
  channelId: `0x${string}`;
  descriptor: ChannelDescriptor;
  transaction: `0x${string}`;
  /** The challenge's expiry (mppx checks sponsored transactions against it). */
  challengeExpires?: string;
}

export function tempoChannelBackend(tempo: MppTempoConfig, channels: MppChannelConfig): ChannelBackend {
  const chain = defineChain({
    ...tempoMainnet,
    id: tempo.chainId,
    rpcUrls: { default: { http: [tempo.rpcUrl] } },
  });
  const closer = privateKeyToAccount(channels.operatorKey);
  const client = createClient({ chain, transport: http(tempo.rpcUrl), account: closer });
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
  /**
   * mppx's refusal of a transaction (a 4xx: the payer's to fix) as kasir's, anything else as a chain failure. A
   * transaction mppx cannot even read (its checks run before anything is sent) is the payer's too.
   */
  const txError = (what: string) => (err: unknown) => {
    const unreadable =
      err instanceof Error && !(err instanceof Errors.PaymentError) && !('shortMessage' in err);
    if ((err instanceof Errors.PaymentError && err.status < 500) || unreadable) {
      throw new PaymentRefusal(
        'payment_invalid',
        `the channel's ${what} transaction was refused: ${err.message}`,
      );
    }
    return chainError(`take the channel's ${what}`, err);
  };
  /** Runs mppx's checks of a payer's transaction, which read nothing from the chain: any failure is the payer's. */
  const checked = (what: string, check: () => unknown) => {
    try {
      check();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new PaymentRefusal(
        'payment_invalid',
        `payload.transaction: the ${what} transaction is refused: ${reason}`,
      );
    }
  };
  return {
    chainId: tempo.chainId,
    escrow: channels.escrow,
    closer: closer.address,
    async broadcastOpen(open, expect) {
      const { descriptor } = open;
      const parameters = {
        chainId: tempo.chainId,
        escrowContract: channels.escrow,
        serializedTransaction: open.transaction,
        expectedChannelId: open.channelId,
        expectedPayee: expect.payee as `0x${string}`,
        expectedCurrency: expect.token as `0x${string}`,
        expectedPayer: descriptor.payer,
        expectedOperator: descriptor.operator,
        expectedAuthorizedSigner: descriptor.authorizedSigner,
        expectedExpiringNonceHash: descriptor.expiringNonceHash,
        ...(open.challengeExpires ? { challengeExpires: open.challengeExpires } : {}),
      };
      checked('open', () => Chain.validateOpenCredentialTransaction(parameters));
      const opened = await Chain.broadcastOpenTransaction({ client, ...parameters }).catch(txError('open'));
      return opened.descriptor;
    },
    async broadcastTopUp(topUp) {
      const parameters = {
        chainId: tempo.chainId,
        escrowContract: channels.escrow,
        serializedTransaction: topUp.transaction,
        descriptor: topUp.descriptor,
        expectedChannelId: topUp.channelId,
        expectedCurrency: topUp.descriptor.token,
        additionalDeposit: topUp.additionalDeposit,
        ...(topUp.challengeExpires ? { challengeExpires: topUp.challengeExpires } : {}),
      };
      checked('top-up', () => Chain.validateTopUpCredentialTransaction(parameters));
      await Chain.broadcastTopUpTransaction({ client, ...parameters }).catch(txError('top-up'));
    },
    idOf: (descriptor) =>
      Channel.computeId({ ...descriptor, chainId: tempo.chainId, escrow: channels.escrow }),
    async state(descriptor) {
      const { state } = await Chain.getChannel(client, descriptor, channels.escrow).catch((err) =>
        chainError('read the channel', err),
      );
      return state.deposit === 0n && state.settled === 0n ? null : state;
    },
    // Closed only once the close is mined and succeeded: a reverted close leaves the channel open on chain.
    close: (descriptor, cumulative, capture, signature) =>
      Chain.closeOnChain(client, descriptor, cumulative, capture, signature, channels.escrow)
        .then(async (hash) => {
          await Chain.waitForSuccessfulReceipt(client, hash);
          return hash;
        })
        .catch((err) => chainError('close the channel', err)),
  };
}
