/**
 * On-chain refunds of Tempo payments: a payment that moved before its call failed (a push payment, which the payer
 * broadcast itself, or a pull payment broadcast when its stream started) is sent back to the payer from the refund
 * wallet (MPP_TEMPO_REFUND_KEY), as a TIP-20 `transferWithMemo` whose memo is the payment's transaction hash. kasir
 * holds no balance for the payer: each refund is recorded (in the MPP store, by the payment's challenge) as sent,
 * or as owed when it could not be sent, so an operator can see and settle it by hand.
 */
import type { Store } from 'mppx';
import { createClient, defineChain, http, publicActions, walletActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tempo as tempoMainnet } from 'viem/chains';
import { Actions } from 'viem/tempo';
import type { MppTempoConfig } from '../../config/mpp.js';

export interface RefundOrder {
  /** The challenge the payment answered: one refund per challenge. */
  challengeId: string;
  payer: `0x${string}`;
  /** Base units of the configured currency (6 decimals: the micro-USD quote). */
  amount: bigint;
  /** The payment's own transaction (its hash is the refund's memo). */
  paymentTx: `0x${string}`;
}

export type RefundOutcome =
  | { state: 'sent'; tx: `0x${string}` }
  | { state: 'owed'; reason: string }
  | { state: 'already'; record: RefundRecord };

export interface RefundRecord {
  state: 'sent' | 'owed';
  payer: string;
  amount: string;
  currency: string;
  payment_tx: string;
  refund_tx: string | null;
  reason: string | null;
  at: string;
}

export interface TempoRefunder {
  /** The refund wallet's address; null without a refund key (every refund is then recorded as owed). */
  readonly address: `0x${string}` | null;
  refund(order: RefundOrder): Promise<RefundOutcome>;
}

/** The store key of a challenge's refund record. */
export const refundKey = (challengeId: string) => `kasir:mpp:refund:${challengeId}`;

/** Reads a challenge's refund record, if any. */
export async function readRefund(
  store: Store.AtomicStore,
  challengeId: string,
): Promise<RefundRecord | null> {
  return ((await store.get(refundKey(challengeId))) as RefundRecord | null) ?? null;
}

/**
 * The refund sender. Refunds leave one at a time per instance, so the wallet's nonces do not race. Without a
 * refund key nothing can be sent: the refund is recorded as owed.
 */
export function tempoRefunder(config: MppTempoConfig, store: Store.AtomicStore): TempoRefunder {
  const record = (order: RefundOrder, fields: Pick<RefundRecord, 'state' | 'refund_tx' | 'reason'>) =>
    store.put(refundKey(order.challengeId), {
      ...fields,
      payer: order.payer,
      amount: order.amount.toString(),
      currency: config.currency,
      payment_tx: order.paymentTx,
      at: new Date().toISOString(),
    } satisfies RefundRecord);
  /** Claimed first, so a refund is sent at most once whatever happens after; the record found when it was not. */
  const claim = async (order: RefundOrder) =>
    (await store.update(refundKey(order.challengeId), (current) =>
      current ? { op: 'noop', result: current } : { op: 'set', value: { state: 'sending' }, result: null },
    )) as RefundRecord | null;

  if (!config.refundKey) {
    return {
      address: null,
      async refund(order) {
        const found = await claim(order);
        if (found) return { state: 'already', record: found };
        const reason = 'no refund wallet is configured (MPP_TEMPO_REFUND_KEY)';
        await record(order, { state: 'owed', refund_tx: null, reason });
        return { state: 'owed', reason };
      },
    };
  }
  // Tempo's own chain definition (its transaction type), paying the network fee in the accepted stablecoin.
  const chain = defineChain({
    ...tempoMainnet,
    id: config.chainId,
    rpcUrls: { default: { http: [config.rpcUrl] } },
    feeToken: config.currency,
  });
  const account = privateKeyToAccount(config.refundKey);
  const wallet = createClient({ account, chain, transport: http(config.rpcUrl), pollingInterval: 250 })
    .extend(publicActions)
    .extend(walletActions);
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run);
    queue = next.catch(() => {});
    return next;
  };

  return {
    address: account.address,
    async refund(order) {
      const found = await claim(order);
      if (found) return { state: 'already', record: found };
      try {
        const { receipt } = await serially(() =>
          Actions.token.transferSync(wallet, {
            token: config.currency,
            to: order.payer,
            amount: order.amount,
            memo: order.paymentTx,
          }),
        );
        await record(order, { state: 'sent', refund_tx: receipt.transactionHash, reason: null });
        return { state: 'sent', tx: receipt.transactionHash };
      } catch (err) {
        const reason = (err as Error).message.split('\n')[0] ?? 'unknown';
        await record(order, { state: 'owed', refund_tx: null, reason });
        return { state: 'owed', reason };
      }
    },
  };
}
