// Fake Algorand testnet ledger (one USDC-like ASA) behind @x402/avm's FacilitatorAvmSigner, plus a payer paying like the stock client.
import { createPublicKey, verify as edVerify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ALGORAND_TESTNET_CAIP2,
  ALGORAND_TESTNET_GENESIS_HASH,
  decodeSignedTransaction as decodeAlgokitSigned,
  type FacilitatorAvmSigner,
  isExactAvmPayload,
  toClientAvmSigner,
  toFacilitatorAvmSigner,
} from '@x402/avm';
import { ExactAvmScheme } from '@x402/avm/exact/client';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements, ResourceInfo } from '@x402/core/types';
import {
  type Account,
  type Address,
  assignGroupID,
  computeGroupID,
  decodeSignedTransaction,
  decodeUnsignedTransaction,
  encodeMsgpack,
  encodeUnsignedTransaction,
  generateAccount,
  makeAssetTransferTxnWithSuggestedParamsFromObject,
  makePaymentTxnWithSuggestedParamsFromObject,
  SignedTransaction,
  type Transaction,
} from 'algosdk';

type SimulateResponse = Awaited<ReturnType<FacilitatorAvmSigner['simulateTransactions']>>;
type PendingTransaction = Awaited<ReturnType<FacilitatorAvmSigner['waitForConfirmation']>>;

const NETWORK = ALGORAND_TESTNET_CAIP2;
const GENESIS_ID = 'testnet-v1.0';
const GENESIS_HASH = Buffer.from(ALGORAND_TESTNET_GENESIS_HASH, 'base64');
const MIN_FEE = 1000n; // µALGO per transaction; fee per byte is 0 (uncongested)
const MIN_BALANCE = 100_000n; // µALGO per account, plus the same again per ASA holding
const MAX_LIFETIME = 1000n;
const MAX_GROUP = 16;

export interface AvmLedgerOptions {
  assetId?: string; // default '10458941' (testnet USDC, 6 decimals)
  payerAsset?: bigint; // default 10 USDC
  payerAlgo?: bigint; // default exactly the min balance: the payer cannot afford any fee
  feePayerAlgo?: bigint; // default 10 ALGO
  payToOptedIn?: boolean; // default true
  startRound?: bigint; // default 1000
}

export interface AvmPayOverrides {
  amount?: bigint;
  payTo?: string;
  asset?: bigint;
  feePayer?: string | null; // default requirements.extra.feePayer; null: no fee-payer txn, the payer pays
  pooledFee?: bigint; // fee on the fee-payer txn; default 1000 per txn in the group
  payerFee?: bigint; // fee on the payer's axfer; default 0 with a fee payer, else 1000
  signWith?: Uint8Array; // secret key signing the axfer; default the payer's
}

export interface AvmLedger {
  network: typeof NETWORK;
  assetId: string;
  payTo: string;
  feePayer: string;
  facilitatorSigner: FacilitatorAvmSigner;
  payer: { address: string; secretKey: Uint8Array; account: Account };
  algodUrl: string; // in-process algod shim: GET /v2/transactions/params only
  round(): bigint;
  assetBalance(address: string): bigint;
  algoBalance(address: string): bigint;
  confirmedRound(txid: string): bigint | undefined;
  fund(address: string, amounts: { algo?: bigint; asset?: bigint }): void; // asset given: opts in
  advance(rounds: bigint): void;
  requirements(amount: bigint | string, extra?: Record<string, unknown>): PaymentRequirements;
  pay(requirements: PaymentRequirements, resource?: ResourceInfo): Promise<PaymentPayload>;
  payWith(requirements: PaymentRequirements, o?: AvmPayOverrides, resource?: ResourceInfo): PaymentPayload;
  signedGroup(payload: PaymentPayload): Promise<Uint8Array[]>; // fee payer's txns signed, as the facilitator sends it
  close(): Promise<void>;
}

interface Acct {
  algo: bigint;
  assets: Map<bigint, bigint>;
}
interface State {
  round: bigint;
  accounts: Map<string, Acct>;
  seen: Map<string, { lastValid: bigint; round: bigint; bytes: Uint8Array }>;
}

const cloneState = (s: State): State => ({
  round: s.round,
  accounts: new Map([...s.accounts].map(([k, a]) => [k, { algo: a.algo, assets: new Map(a.assets) }])),
  seen: new Map(s.seen),
});
const sameBytes = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && Buffer.from(a).equals(b);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function sigValid(publicKey: Uint8Array, message: Uint8Array, sig: Uint8Array): boolean {
  const x = Buffer.from(publicKey).toString('base64url');
  return edVerify(
    null,
    message,
    createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }),
    sig,
  );
}

function withoutGroup(t: Transaction): Transaction {
  const copy = decodeUnsignedTransaction(encodeUnsignedTransaction(t));
  copy.group = undefined;
  return copy;
}

/** What algod rejects before evaluation (HTTP 400): malformed, expired, bad group id, bad signature, fee too low. */
function checkGroup(state: State, stxns: SignedTransaction[]): void {
  const n = BigInt(stxns.length);
  if (n === 0n || n > MAX_GROUP) throw new Error(`group size ${n} outside 1..${MAX_GROUP}`);
  const next = state.round + 1n;
  const gid = computeGroupID(stxns.map((s) => withoutGroup(s.txn)));
  let fees = 0n;
  stxns.forEach(({ txn: t, sig, sgnr, msig, lsig, pqsig }, i) => {
    if (!sameBytes(t.genesisHash, GENESIS_HASH)) throw new Error(`txn ${i}: genesis hash mismatch`);
    if (t.genesisID && t.genesisID !== GENESIS_ID)
      throw new Error(`txn ${i}: genesis id ${t.genesisID} mismatch`);
    if (t.lastValid - t.firstValid > MAX_LIFETIME) throw new Error(`txn ${i}: validity window too long`);
    if (next < t.firstValid || next > t.lastValid)
      throw new Error(`txn dead: round ${next} outside of ${t.firstValid}--${t.lastValid}`);
    if ((n > 1n || t.group) && !sameBytes(t.group, gid))
      throw new Error(
        `transactionGroup: incomplete group: txn ${i} group id ${t.group ? b64(t.group) : 'none'}`,
      );
    if (msig || lsig || pqsig) throw new Error(`txn ${i}: fake ledger supports only single signatures`);
    if (!sig) throw new Error(`txn ${i}: signedtxn has no sig`);
    const sender = t.sender.toString();
    if (sgnr && sgnr.toString() !== sender)
      throw new Error(`should have been authorized by ${sender} but was actually authorized by ${sgnr}`);
    if (!sigValid(t.sender.publicKey, t.bytesToSign(), sig))
      throw new Error("At least one signature didn't pass verification");
    fees += t.fee;
  });
  if (fees < MIN_FEE * n)
    throw new Error(`txgroup had ${fees} in fees, which is less than the minimum ${n} * ${MIN_FEE}`);
}

/** Applies the group to `state` in place; returns the first failure the way simulate reports it. */
function evalGroup(state: State, stxns: SignedTransaction[], raw: Uint8Array[]) {
  const next = state.round + 1n;
  const touched = new Map<string, number>(); // account → index of the last txn touching it
  let at = 0;
  const acct = (a: Address | string) => {
    const k = a.toString();
    touched.set(k, at);
    const v = state.accounts.get(k) ?? { algo: 0n, assets: new Map<bigint, bigint>() };
    state.accounts.set(k, v);
    return v;
  };
  const debit = (a: Acct, who: string, amount: bigint) => {
    if (a.algo < amount) return `overspend (account ${who}, balance ${a.algo}, tried to spend ${amount})`;
    a.algo -= amount;
  };
  const step = (t: Transaction, i: number): string | undefined => {
    const txid = t.txID();
    const prev = state.seen.get(txid);
    if (prev && prev.lastValid >= next) return `transaction already in ledger: ${txid}`;
    state.seen.set(txid, { lastValid: t.lastValid, round: next, bytes: raw[i] ?? new Uint8Array() });
    const from = t.sender.toString();
    const sender = acct(from);
    if (t.rekeyTo) return 'fake ledger: rekey not supported';
    const feeErr = debit(sender, from, t.fee);
    if (feeErr) return feeErr;
    if (t.type === 'pay' && t.payment) {
      if (t.payment.closeRemainderTo) return 'fake ledger: close not supported';
      const err = debit(sender, from, t.payment.amount);
      if (err) return err;
      acct(t.payment.receiver).algo += t.payment.amount;
      return;
    }
    if (t.type === 'axfer' && t.assetTransfer) {
      const { assetIndex: id, amount, receiver, closeRemainderTo, assetSender } = t.assetTransfer;
      if (closeRemainderTo || assetSender) return 'fake ledger: asset close / clawback not supported';
      const to = receiver.toString();
      if (to === from && amount === 0n && !sender.assets.has(id)) {
        sender.assets.set(id, 0n); // opt-in
        return;
      }
      const have = sender.assets.get(id);
      if (have === undefined) return `asset ${id} missing from ${from}`;
      const dest = acct(to);
      if (!dest.assets.has(id)) return `asset ${id} missing from ${to}`;
      if (have < amount) return `underflow on subtracting ${amount} from sender amount ${have}`;
      sender.assets.set(id, have - amount);
      dest.assets.set(id, (dest.assets.get(id) ?? 0n) + amount);
      return;
    }
    return `fake ledger: transaction type ${t.type} not supported`;
  };
  for (const [i, s] of stxns.entries()) {
    at = i;
    const err = step(s.txn, i);
    if (err) return { index: i, message: `transaction ${s.txn.txID()}: ${err}` };
  }
  for (const [k, index] of touched) {
    const a = state.accounts.get(k);
    const min = MIN_BALANCE * BigInt(1 + (a?.assets.size ?? 0));
    if (a && (a.algo > 0n || a.assets.size > 0) && a.algo < min)
      return { index, message: `account ${k} balance ${a.algo} below min ${min} (${a.assets.size} assets)` };
  }
  return undefined;
}

function decodeGroup(raw: Uint8Array[]): SignedTransaction[] {
  return raw.map((bytes, i) => {
    try {
      return decodeSignedTransaction(bytes);
    } catch (e) {
      throw new Error(`msgpack decode error at txn ${i}: ${(e as Error).message}`);
    }
  });
}

function isSigned(bytes: Uint8Array): boolean {
  try {
    return decodeSignedTransaction(bytes).sig !== undefined;
  } catch {
    return false;
  }
}

function pending(bytes: Uint8Array, confirmedRound?: bigint): PendingTransaction {
  return {
    poolError: '',
    txn: decodeAlgokitSigned(b64(bytes)),
    ...(confirmedRound ? { confirmedRound } : {}),
  };
}

function avmPayload(payload: PaymentPayload) {
  if (!isExactAvmPayload(payload.payload)) throw new Error('not an exact AVM payload');
  return payload.payload;
}

/** Flips one bit of the payer's ed25519 signature. */
export function forgeSignature(payload: PaymentPayload): PaymentPayload {
  const { paymentGroup, paymentIndex } = avmPayload(payload);
  const stxn = decodeSignedTransaction(Buffer.from(paymentGroup[paymentIndex] ?? '', 'base64'));
  const sig = Uint8Array.from(stxn.sig ?? new Uint8Array(64), (x, i) => (i === 7 ? x ^ 1 : x));
  const forged = b64(encodeMsgpack(new SignedTransaction({ txn: stxn.txn, sig })));
  const group = paymentGroup.map((t, i) => (i === paymentIndex ? forged : t));
  return { ...payload, payload: { paymentGroup: group, paymentIndex } };
}

/** `a`'s group with its payment transaction swapped for `b`'s (so the group ids differ). */
export function mixGroups(a: PaymentPayload, b: PaymentPayload): PaymentPayload {
  const pa = avmPayload(a);
  const pb = avmPayload(b);
  const other = pb.paymentGroup[pb.paymentIndex] ?? '';
  const group = pa.paymentGroup.map((t, i) => (i === pa.paymentIndex ? other : t));
  return { ...a, payload: { paymentGroup: group, paymentIndex: pa.paymentIndex } };
}

export async function createAvmLedger(opts: AvmLedgerOptions = {}): Promise<AvmLedger> {
  const assetId = opts.assetId ?? '10458941';
  const asa = BigInt(assetId);
  const [payerAcct, feePayerAcct] = [generateAccount(), generateAccount()];
  const payer = payerAcct.addr.toString();
  const feePayer = feePayerAcct.addr.toString();
  const payTo = generateAccount().addr.toString();
  let state: State = { round: opts.startRound ?? 1000n, accounts: new Map(), seen: new Map() };
  const fund = (address: string, { algo, asset }: { algo?: bigint; asset?: bigint }) => {
    const a = state.accounts.get(address) ?? { algo: 0n, assets: new Map<bigint, bigint>() };
    a.algo += algo ?? 0n;
    if (asset !== undefined) a.assets.set(asa, (a.assets.get(asa) ?? 0n) + asset);
    state.accounts.set(address, a);
  };
  fund(payer, { algo: opts.payerAlgo ?? 2n * MIN_BALANCE, asset: opts.payerAsset ?? 10_000_000n });
  fund(feePayer, { algo: opts.feePayerAlgo ?? 10_000_000n });
  fund(payTo, opts.payToOptedIn === false ? { algo: MIN_BALANCE } : { algo: 2n * MIN_BALANCE, asset: 0n });

  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && req.url?.startsWith('/v2/transactions/params')) {
      const params = { 'consensus-version': 'future', fee: 0, 'genesis-hash': ALGORAND_TESTNET_GENESIS_HASH };
      const more = {
        'genesis-id': GENESIS_ID,
        'last-round': Number(state.round),
        'min-fee': Number(MIN_FEE),
      };
      res.end(JSON.stringify({ ...params, ...more }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ message: `fake algod: ${req.method} ${req.url} not served` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const algodUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const onNetwork = (network: string) => {
    if (network !== NETWORK) throw new Error(`fake ledger serves ${NETWORK} only, not ${network}`);
  };
  const keyB64 = (a: Account) => b64(a.sk);
  const algodClient = toFacilitatorAvmSigner(keyB64(feePayerAcct), { testnetUrl: algodUrl }).getAlgodClient(
    NETWORK,
  );
  const facilitatorSigner: FacilitatorAvmSigner = {
    getAddresses: () => [feePayer],
    signTransaction: async (txn, senderAddress) => {
      const t = decodeUnsignedTransaction(txn);
      if (senderAddress !== feePayer || t.sender.toString() !== feePayer)
        throw new Error(`no key for ${senderAddress}`);
      return t.signTxn(feePayerAcct.sk);
    },
    getAlgodClient: (network) => {
      onNetwork(network);
      return algodClient;
    },
    simulateTransactions: async (txns, network) => {
      onNetwork(network);
      const stxns = decodeGroup(txns);
      checkGroup(state, stxns);
      const failed = evalGroup(cloneState(state), stxns, txns);
      const txnResults = txns.map((bytes) => ({ txnResult: pending(bytes) }));
      const group = failed
        ? { txnResults, failureMessage: failed.message, failedAt: [failed.index] }
        : { txnResults };
      return { version: 2, lastRound: state.round, txnGroups: [group] } satisfies SimulateResponse;
    },
    sendTransactions: async (signedTxns, network) => {
      onNetwork(network);
      const stxns = decodeGroup(signedTxns);
      checkGroup(state, stxns);
      const next = cloneState(state);
      const failed = evalGroup(next, stxns, signedTxns);
      if (failed) throw new Error(`TransactionPool.Remember: ${failed.message}`);
      next.round += 1n;
      state = next;
      return stxns[0]?.txn.txID() ?? '';
    },
    waitForConfirmation: async (txId, network, waitRounds = 4) => {
      onNetwork(network);
      const hit = state.seen.get(txId);
      if (!hit) throw new Error(`Transaction ${txId} not confirmed after ${waitRounds} rounds`);
      return pending(hit.bytes, hit.round);
    },
  };

  const client = new x402Client().register(
    NETWORK,
    new ExactAvmScheme(toClientAvmSigner(keyB64(payerAcct)), { algodUrl }),
  );
  const defaultResource: ResourceInfo = { url: 'http://localhost/a402/test-model' };
  let nonce = 0;

  const payWith = (req: PaymentRequirements, o: AvmPayOverrides = {}, resource = defaultResource) => {
    const fp = o.feePayer === undefined ? (req.extra.feePayer as string | undefined) : o.feePayer;
    const sp = { flatFee: true, minFee: MIN_FEE, firstValid: state.round, lastValid: state.round + 10n };
    const base = { ...sp, genesisID: GENESIS_ID, genesisHash: new Uint8Array(GENESIS_HASH) };
    const note = (tag: string) => new TextEncoder().encode(`x402-${tag}-${++nonce}-${Date.now()}`);
    const axfer = makeAssetTransferTxnWithSuggestedParamsFromObject({
      sender: payer,
      receiver: o.payTo ?? req.payTo,
      assetIndex: o.asset ?? BigInt(req.asset),
      amount: o.amount ?? BigInt(req.amount),
      note: note('payment'),
      suggestedParams: { ...base, fee: o.payerFee ?? (fp ? 0n : MIN_FEE) },
    });
    const fee = o.pooledFee ?? 2n * MIN_FEE;
    const txns = fp
      ? assignGroupID([
          makePaymentTxnWithSuggestedParamsFromObject({
            sender: fp,
            receiver: fp,
            amount: 0n,
            note: note('fee-payer'),
            suggestedParams: { ...base, fee },
          }),
          axfer,
        ])
      : [axfer];
    const key = o.signWith ?? payerAcct.sk;
    const paymentGroup = txns.map((t) => b64(t === axfer ? t.signTxn(key) : encodeUnsignedTransaction(t)));
    const payload = { paymentGroup, paymentIndex: txns.indexOf(axfer) };
    return { x402Version: 2, resource, accepted: req, payload } satisfies PaymentPayload;
  };

  return {
    network: NETWORK,
    assetId,
    payTo,
    feePayer,
    facilitatorSigner,
    payer: { address: payer, secretKey: payerAcct.sk, account: payerAcct },
    algodUrl,
    round: () => state.round,
    assetBalance: (address) => state.accounts.get(address)?.assets.get(asa) ?? 0n,
    algoBalance: (address) => state.accounts.get(address)?.algo ?? 0n,
    confirmedRound: (txid) => state.seen.get(txid)?.round,
    fund,
    advance: (rounds) => {
      state.round += rounds;
    },
    requirements: (amount, extra = {}) => ({
      scheme: 'exact',
      network: NETWORK,
      asset: assetId,
      amount: String(amount),
      payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer, ...extra },
    }),
    pay: (requirements, resource = defaultResource) =>
      client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] }),
    payWith,
    signedGroup: async (payload) => {
      const { paymentGroup } = avmPayload(payload);
      const bytes = paymentGroup.map((t) => new Uint8Array(Buffer.from(t, 'base64')));
      return Promise.all(
        bytes.map((b) => (isSigned(b) ? b : facilitatorSigner.signTransaction(b, feePayer))),
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
