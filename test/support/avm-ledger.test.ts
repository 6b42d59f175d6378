// Proves the fake Algorand ledger against the real @x402/avm exact facilitator inside an @x402/core x402Facilitator.
import { ExactAvmScheme } from '@x402/avm/exact/facilitator';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { generateAccount } from 'algosdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AvmLedger,
  type AvmLedgerOptions,
  createAvmLedger,
  forgeSignature,
  mixGroups,
} from './avm-ledger.js';

const PRICE = 25_000n; // 0.025 USDC

let open: AvmLedger[] = [];
afterEach(async () => {
  await Promise.all(open.map((l) => l.close()));
  open = [];
});

async function setup(opts?: AvmLedgerOptions) {
  const ledger = await createAvmLedger(opts);
  open.push(ledger);
  const facilitator = new x402Facilitator().register(
    ledger.network,
    new ExactAvmScheme(ledger.facilitatorSigner),
  );
  return { ledger, facilitator, req: ledger.requirements(PRICE) };
}

function balances(l: AvmLedger) {
  const { payer, payTo, feePayer } = l;
  return {
    payerAsset: l.assetBalance(payer.address),
    payToAsset: l.assetBalance(payTo),
    payerAlgo: l.algoBalance(payer.address),
    feePayerAlgo: l.algoBalance(feePayer),
  };
}

async function refused(f: x402Facilitator, p: PaymentPayload, req: PaymentRequirements, reason: string) {
  const v = await f.verify(p, req);
  expect(v).toMatchObject({ isValid: false, invalidReason: reason });
  const s = await f.settle(p, req);
  expect(s).toMatchObject({ success: false, errorReason: reason });
  return { verifyMessage: v.invalidMessage, settleMessage: s.errorMessage };
}

describe('fake AVM ledger behind the real @x402/avm facilitator', () => {
  it('verifies, settles and moves exactly the amount; the payer pays no ALGO', async () => {
    const { ledger, facilitator, req } = await setup();
    const payload = await ledger.pay(req);
    expect(payload).toMatchObject({ x402Version: 2, accepted: req, payload: { paymentIndex: 1 } });
    const before = balances(ledger);

    expect(await facilitator.verify(payload, req)).toMatchObject({
      isValid: true,
      payer: ledger.payer.address,
    });
    const settled = await facilitator.settle(payload, req);
    expect(settled).toMatchObject({ success: true, network: ledger.network, payer: ledger.payer.address });
    expect(settled.transaction).toMatch(/^[A-Z2-7]{52}$/);
    expect(ledger.confirmedRound(settled.transaction)).toBe(ledger.round());

    const after = balances(ledger);
    expect(after.payerAsset).toBe(before.payerAsset - PRICE);
    expect(after.payToAsset).toBe(before.payToAsset + PRICE);
    expect(after.payerAlgo).toBe(before.payerAlgo); // gasless
    expect(after.feePayerAlgo).toBe(before.feePayerAlgo - 2000n); // pooled fee for the 2-txn group
  });

  it('advertises the fee payer through /supported of the 2.27 facilitator', async () => {
    const { ledger, facilitator } = await setup();
    const kind = facilitator.getSupported().kinds.find((k) => k.network === ledger.network);
    expect(kind).toMatchObject({ x402Version: 2, scheme: 'exact', extra: { feePayer: ledger.feePayer } });
  });

  it('refuses a replay of a settled group (txid already in the ledger)', async () => {
    const { ledger, facilitator, req } = await setup();
    const payload = await ledger.pay(req);
    expect((await facilitator.settle(payload, req)).success).toBe(true);
    const before = balances(ledger);
    const { settleMessage } = await refused(facilitator, payload, req, 'invalid_exact_avm_simulation_failed');
    expect(settleMessage).toMatch(/transaction already in ledger/);
    await expect(
      ledger.facilitatorSigner.sendTransactions(await ledger.signedGroup(payload), ledger.network),
    ).rejects.toThrow(/already in ledger/);
    expect(balances(ledger)).toEqual(before);
  });

  it('settles a payload only once when two settles race', async () => {
    const { ledger, facilitator, req } = await setup();
    const payload = await ledger.pay(req);
    const results = await Promise.all([facilitator.settle(payload, req), facilitator.settle(payload, req)]);
    expect(results.filter((r) => r.success)).toHaveLength(1);
    const loser = results.find((r) => !r.success);
    expect(loser?.errorMessage).toMatch(/already in ledger/);
    expect(ledger.assetBalance(ledger.payTo)).toBe(PRICE);
  });

  it('refuses an underpayment', async () => {
    const { ledger, facilitator, req } = await setup();
    const stock = await ledger.pay({ ...req, amount: String(PRICE - 1n) });
    await refused(facilitator, stock, req, 'invalid_exact_avm_amount_mismatch');
    await refused(
      facilitator,
      ledger.payWith(req, { amount: PRICE - 1n }),
      req,
      'invalid_exact_avm_amount_mismatch',
    );
    expect(ledger.assetBalance(ledger.payTo)).toBe(0n);
  });

  it('refuses a forged signature', async () => {
    const { ledger, facilitator, req } = await setup();
    const forged = forgeSignature(await ledger.pay(req));
    await refused(facilitator, forged, req, 'invalid_exact_avm_invalid_signature');
    const sent = ledger.facilitatorSigner.sendTransactions(await ledger.signedGroup(forged), ledger.network);
    await expect(sent).rejects.toThrow(/signature didn't pass verification/);
    const byStranger = ledger.payWith(req, { signWith: generateAccount().sk });
    await refused(facilitator, byStranger, req, 'invalid_exact_avm_invalid_signature');
    expect(ledger.assetBalance(ledger.payTo)).toBe(0n);
  });

  it('refuses a mixed group (group ids differ), in the SDK and in the ledger', async () => {
    const { ledger, facilitator, req } = await setup();
    const mixed = mixGroups(await ledger.pay(req), ledger.payWith(req));
    await refused(facilitator, mixed, req, 'invalid_exact_avm_invalid_group_id');
    await expect(
      ledger.facilitatorSigner.sendTransactions(await ledger.signedGroup(mixed), ledger.network),
    ).rejects.toThrow(/incomplete group/);
    expect(ledger.assetBalance(ledger.payTo)).toBe(0n);
  });

  it('is as strict as algod on fees, balances and opt-in (reported by simulate)', async () => {
    const { ledger, facilitator, req } = await setup({ payerAsset: PRICE - 1n });
    const sim = 'invalid_exact_avm_simulation_failed';
    const low = await refused(facilitator, ledger.payWith(req, { pooledFee: 1000n }), req, sim);
    expect(low.verifyMessage).toMatch(/less than the minimum 2 \* 1000/);
    expect((await refused(facilitator, ledger.payWith(req), req, sim)).verifyMessage).toMatch(/underflow/);
    const ownFee = ledger.payWith(ledger.requirements(1n), { feePayer: null });
    const r = await refused(facilitator, ownFee, ledger.requirements(1n), sim);
    expect(r.verifyMessage).toMatch(/below min 200000/); // the payer holds no spare ALGO for fees

    const notOptedIn = await setup({ payToOptedIn: false });
    const p = await notOptedIn.ledger.pay(notOptedIn.req);
    expect((await refused(notOptedIn.facilitator, p, notOptedIn.req, sim)).verifyMessage).toMatch(
      /missing from/,
    );
  });
});
