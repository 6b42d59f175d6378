/**
 * One x402 payment waiting for its call's outcome: settled on its chain only when the call succeeded (then its
 * usage recorded and the payment handed over once the answer is stored), its lock released when the call failed or
 * the settlement did; a payment that had settled before for a call whose answer was never stored is charged once.
 */

import { encodePaymentResponseHeader } from '@x402/core/http';
import type { x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import {
  handOverWalletPayment,
  recordWalletUsage,
  releaseWalletPayment,
  settleWalletPayment,
  unclaimPaidWalletPayment,
  walletUsageCharged,
} from '../../ledger/wallet-payments.js';
import type { Db } from '../../store/db.js';
import type { Authorization, Payer, RailReceipt, UsageFacts } from '../types.js';
import { PaymentRefusal } from '../types.js';
import { usageRow } from '../usage.js';
import type { Chain } from './chain.js';

/** The payment's requirements on one chain, for one quote. */
export interface Offered {
  chain: Chain;
  requirements: PaymentRequirements;
}

/** What an authorization needs of the rail: the database and the resource server that settles. */
export interface SettlementContext {
  db: Db;
  server: Pick<x402ResourceServer, 'settlePayment'>;
}

export class X402Authorization implements Authorization {
  constructor(
    private readonly ctx: SettlementContext,
    readonly payer: Payer,
    readonly amountMicroUsd: number,
    private readonly payload: PaymentPayload,
    private readonly chosen: Offered,
    private readonly lockId: string,
    private readonly route: string,
    /** The payment already settled in this transaction (its answer is being made again): nothing to settle. */
    private readonly settledTx: string | null = null,
  ) {}

  private async record(usage: UsageFacts, charged: number, txId: string | null) {
    const row = usageRow(usage, { rail: 'x402', payer: this.payer, chargedMicroUsd: charged });
    await recordWalletUsage(this.ctx.db, row, {
      route: this.route,
      network: this.chosen.chain.config.network,
      txId,
    });
  }

  /** The answer's headers and receipt for a settlement, and the hand-over that marks the payment spent for good. */
  private receipt(settled: SettleResponse): RailReceipt {
    return {
      headers: { 'payment-response': encodePaymentResponseHeader(settled) },
      receipt: {
        rail: 'x402',
        network: settled.network,
        transaction: settled.transaction,
        payer: settled.payer ?? this.payer.address,
        asset: this.chosen.requirements.asset,
        amount: this.chosen.requirements.amount,
        charged_micro_usd: this.amountMicroUsd,
      },
      // Called once the answer is stored for replay, right before it is handed over (see PaidCall).
      commit: () => handOverWalletPayment(this.ctx.db, this.lockId),
    };
  }

  async capture(usage: UsageFacts): Promise<RailReceipt> {
    if (this.settledTx !== null) {
      // Settled before by a call that never stored its answer: charged then (its usage record, if it got that far),
      // so charged here only if it did not.
      if (!(await walletUsageCharged(this.ctx.db, this.settledTx)))
        await this.record(usage, this.amountMicroUsd, this.settledTx);
      return this.receipt({
        success: true,
        transaction: this.settledTx,
        network: this.chosen.requirements.network,
        payer: this.payer.address ?? undefined,
      } as SettleResponse);
    }
    let settled: SettleResponse;
    try {
      settled = await this.ctx.server.settlePayment(this.payload, this.chosen.requirements);
    } catch (err) {
      settled = {
        success: false,
        errorReason: 'settlement_error',
        errorMessage: (err as Error).message,
        transaction: '',
        network: this.chosen.requirements.network,
      } as SettleResponse;
    }
    if (!settled.success) {
      await releaseWalletPayment(this.ctx.db, this.lockId);
      await this.record({ ...usage, httpStatus: 402, errorCode: 'payment_failed' }, 0, null);
      throw new PaymentRefusal(
        'payment_failed',
        `the payment verified but could not be settled (${settled.errorReason ?? 'unknown reason'}), so the result is withheld`,
        { reason: settled.errorReason ?? null, message: settled.errorMessage ?? null },
        { 'payment-response': encodePaymentResponseHeader(settled) },
      );
    }
    await settleWalletPayment(this.ctx.db, this.lockId, settled.transaction);
    await this.record(usage, this.amountMicroUsd, settled.transaction);
    return this.receipt(settled);
  }

  async void(usage: UsageFacts): Promise<RailReceipt> {
    // A settled payment stays settled: its answer may be asked for again.
    if (this.settledTx !== null) await unclaimPaidWalletPayment(this.ctx.db, this.lockId);
    else await releaseWalletPayment(this.ctx.db, this.lockId);
    await this.record(usage, 0, null);
    return { headers: {}, receipt: { rail: 'x402', charged_micro_usd: 0 } };
  }

  streamHeaders(): Record<string, string> {
    return {};
  }
}
