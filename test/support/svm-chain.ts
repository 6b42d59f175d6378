// An offline Solana chain (litesvm) for x402 tests: a USDC-like mint, a funded payer, a FacilitatorSvmSigner over it, and payments made by the stock @x402/svm client.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  address,
  generateKeyPairSigner,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type KeyPairSigner,
  lamports,
  partiallySignTransaction,
  signature,
  type Transaction,
} from '@solana/kit';
import {
  AccountState,
  findAssociatedTokenPda,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { x402Client } from '@x402/core/client';
import type { Network, PaymentPayload, PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { type FacilitatorSvmSigner, SOLANA_DEVNET_CAIP2, TransactionOnchainFailureError } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

/** What the client signs differently from `accepted` (to forge underpayments, wrong recipients, …). */
export type PayOverrides = Partial<Pick<PaymentRequirements, 'amount' | 'payTo' | 'asset'>>;

export interface SvmChain {
  svm: LiteSVM;
  /** Solana devnet's CAIP-2 id (SOLANA_DEVNET_CAIP2). */
  network: Network;
  /** USDC-like SPL mint (6 decimals, classic Token program). */
  mint: string;
  /** Merchant owner; its ATA exists with 0 tokens. */
  payTo: string;
  /** The facilitator's fee payer (funded with SOL); goes into `requirements.extra.feePayer`. */
  feePayer: string;
  facilitatorSigner: FacilitatorSvmSigner;
  payer: { address: string; signer: KeyPairSigner };
  /** Exact-scheme requirements for `amount` atomic units to `payTo`. */
  requirements(amount: bigint | string, extra?: Record<string, unknown>): PaymentRequirements;
  /** Amount held by ATA(owner, mint) for payer, payTo or an `openTokenAccount` owner (throws for others). */
  tokenBalance(owner: string): bigint;
  /** Writes ATA(owner, mint) holding `amount`; returns the ATA address. */
  openTokenAccount(owner: string, amount?: bigint): Promise<string>;
  pay(requirements: PaymentRequirements, resource?: ResourceInfo): Promise<PaymentPayload>;
  /** Signs `{...requirements, ...overrides}` but reports `accepted: requirements`, as a cheating client would. */
  payWith(
    requirements: PaymentRequirements,
    overrides: PayOverrides,
    resource?: ResourceInfo,
  ): Promise<PaymentPayload>;
  /** Stops the loopback RPC shim the stock client reads the mint and blockhash from. */
  close(): Promise<void>;
}

const DEFAULT_RESOURCE: ResourceInfo = {
  url: 'http://localhost/test',
  description: 'test',
  mimeType: 'application/json',
};

export async function createSvmChain(opts: { payerFunds?: bigint } = {}): Promise<SvmChain> {
  const svm = new LiteSVM();
  const network: Network = SOLANA_DEVNET_CAIP2;
  const [mintKey, merchant, feePayerKey, payer] = await Promise.all([
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
  ]);
  const mint = mintKey.address;
  const mintData = getMintEncoder().encode({
    mintAuthority: mintKey.address,
    supply: 1n << 60n,
    decimals: 6,
    isInitialized: true,
    freezeAuthority: null,
  });
  writeAccount(svm, mint, mintData);
  svm.airdrop(feePayerKey.address, lamports(10_000_000_000n));

  const ataOf = async (owner: string) =>
    (await findAssociatedTokenPda({ mint, owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const openTokenAccount = async (owner: string, amount = 0n) => {
    const ata = await ataOf(owner);
    const data = getTokenEncoder().encode({
      mint,
      owner: address(owner),
      amount,
      delegate: null,
      state: AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    });
    writeAccount(svm, ata, data);
    return ata;
  };
  await openTokenAccount(payer.address, opts.payerFunds ?? 10_000_000n);
  await openTokenAccount(merchant.address);
  const atas = new Map<string, Address>();
  for (const owner of [payer.address, merchant.address]) atas.set(owner, await ataOf(owner));

  const rpc = await startRpcShim(svm);
  const client = new x402Client().setSpendControls(false);
  client.register(network, new ExactSvmScheme(payer, { rpcUrl: rpc.url }));
  const payWith = async (
    requirements: PaymentRequirements,
    overrides: PayOverrides,
    resource = DEFAULT_RESOURCE,
  ) => {
    const signed = { ...requirements, ...overrides };
    const payload = await client.createPaymentPayload({ x402Version: 2, resource, accepts: [signed] });
    return { ...payload, accepted: requirements };
  };

  return {
    svm,
    network,
    mint,
    payTo: merchant.address,
    feePayer: feePayerKey.address,
    facilitatorSigner: litesvmFacilitatorSigner(svm, network, feePayerKey),
    payer: { address: payer.address, signer: payer },
    requirements: (amount, extra = {}) => ({
      scheme: 'exact',
      network,
      amount: amount.toString(),
      asset: mint,
      payTo: merchant.address,
      maxTimeoutSeconds: 60,
      extra: { feePayer: feePayerKey.address, ...extra },
    }),
    tokenBalance(owner) {
      const ata = atas.get(owner);
      if (!ata) throw new Error(`tokenBalance: no token account opened for ${owner}`);
      const account = svm.getAccount(ata);
      return account.exists ? getTokenDecoder().decode(account.data).amount : 0n;
    },
    async openTokenAccount(owner, amount) {
      const ata = await openTokenAccount(owner, amount);
      atas.set(owner, ata);
      return ata;
    },
    pay: (requirements, resource) => payWith(requirements, {}, resource),
    payWith,
    close: () => new Promise<void>((resolve) => rpc.server.close(() => resolve())),
  };
}

function writeAccount(svm: LiteSVM, at: Address, data: Uint8Array | ArrayLike<number>): void {
  const bytes = Uint8Array.from(data);
  svm.setAccount({
    address: at,
    data: bytes,
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(bytes.length))),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(bytes.length),
  });
}

const decodeTx = (base64: string): Transaction =>
  getTransactionDecoder().decode(getBase64Encoder().encode(base64));

function failure(result: FailedTransactionMetadata): string {
  return `${result.toString()} ${result.meta().logs().join(' | ')}`;
}

/** The facilitator's view of the chain: signs as fee payer, simulates and sends through litesvm. */
function litesvmFacilitatorSigner(
  svm: LiteSVM,
  network: string,
  feePayer: KeyPairSigner,
): FacilitatorSvmSigner {
  const onNetwork = (n: string) => {
    if (n !== network) throw new Error(`litesvm signer serves ${network}, not ${n}`);
  };
  const signAsFeePayer = async (base64: string, payerAddress: string = feePayer.address) => {
    if (payerAddress !== feePayer.address) throw new Error(`no signer for fee payer ${payerAddress}`);
    return partiallySignTransaction([feePayer.keyPair], decodeTx(base64));
  };
  return {
    getAddresses: () => [feePayer.address],
    async signTransaction(transaction, payerAddress, n) {
      onNetwork(n);
      return getBase64EncodedWireTransaction(await signAsFeePayer(transaction, payerAddress));
    },
    async simulateTransaction(transaction, n) {
      onNetwork(n);
      // litesvm always verifies signatures, so fill the fee payer's slot first (an RPC would use sigVerify:false).
      const result = svm.simulateTransaction(await signAsFeePayer(transaction));
      if (result instanceof FailedTransactionMetadata)
        throw new Error(`simulation failed: ${failure(result)}`);
    },
    async sendTransaction(transaction, n) {
      onNetwork(n);
      const tx = decodeTx(transaction);
      const result = svm.sendTransaction(tx);
      if (result instanceof FailedTransactionMetadata) throw new Error(`send failed: ${failure(result)}`);
      return getSignatureFromTransaction(tx);
    },
    async confirmTransaction(sig, n) {
      onNetwork(n);
      const result = svm.getTransaction(signature(sig));
      if (result === null) throw new Error(`transaction ${sig} not found`);
      if (result instanceof FailedTransactionMetadata)
        throw new TransactionOnchainFailureError(failure(result));
    },
  };
}

/** A loopback JSON-RPC endpoint answering the two calls the stock client makes (getAccountInfo, getLatestBlockhash). */
async function startRpcShim(svm: LiteSVM): Promise<{ url: string; server: Server }> {
  const answer = (method: string, params: unknown[]): unknown => {
    const context = { slot: Number(svm.getClock().slot) };
    if (method === 'getLatestBlockhash') {
      return {
        context,
        value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: context.slot + 150 },
      };
    }
    if (method === 'getAccountInfo') {
      const account = svm.getAccount(address(String(params[0])));
      if (!account.exists) return { context, value: null };
      const value = {
        data: [getBase64Decoder().decode(account.data), 'base64'],
        executable: account.executable,
        lamports: Number(account.lamports),
        owner: account.programAddress,
        rentEpoch: 0,
        space: Number(account.space),
      };
      return { context, value };
    }
    throw new Error(`rpc shim: unsupported method ${method}`);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let id: unknown = null;
      let body: unknown;
      try {
        const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id: unknown;
          method: string;
          params?: unknown[];
        };
        id = call.id;
        body = { jsonrpc: '2.0', id, result: answer(call.method, call.params ?? []) };
      } catch (error) {
        body = { jsonrpc: '2.0', id, error: { code: -32601, message: String(error) } };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
