/**
 * The devnet's Tempo node with a TIP-1034 channel escrow: anvil in Tempo mode with the escrow contract
 * (contracts/TIP20ChannelEscrow.sol) set at the precompile's address, behind a small JSON-RPC front that gives the
 * contract what the precompile gets from the node. Before it forwards a transaction that calls the escrow's `open`,
 * the front writes that transaction's expiring-nonce hash for the payer into the contract (the channel id commits to
 * it; EVM code cannot see its own transaction) and, when the payer's allowance is short, approves the deposit on
 * the payer's behalf (the precompile moves TIP-20 without an allowance; a contract needs one). Everything else is
 * passed through untouched, so mppx's session client and server run against it unmodified. Local chains only.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'mppx/tempo';
import {
  createClient,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  publicActions,
} from 'viem';
import { Transaction } from 'viem/tempo';

/** Where Tempo networks (and mppx) expect the TIP-1034 escrow precompile. */
export const TIP1034_ESCROW = Session.Precompile.Constants.tip20ChannelEscrow as `0x${string}`;

const { escrowAbi } = Session.Precompile;
const tokenAbi = parseAbi([
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);

/** The compiled escrow's runtime code (src/devnet/tip20-channel-escrow.json, built by scripts/build-contracts.mjs). */
function escrowRuntime(): Hex {
  const artifact = JSON.parse(
    readFileSync(new URL('./tip20-channel-escrow.json', import.meta.url), 'utf8'),
  ) as { runtime: Hex };
  return artifact.runtime;
}

/** The storage slot of `openNonceHash[payer]` (the contract's first mapping, slot 0). */
const nonceHashSlot = (payer: `0x${string}`) =>
  keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [payer, 0n]));

interface RpcRequest {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

export interface EscrowNode {
  /** The front's URL: what every client of the devnet's Tempo chain uses. */
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Puts the escrow at its address on the anvil at `anvilUrl` and starts the front before it. */
export async function startEscrowNode(anvilUrl: string): Promise<EscrowNode> {
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await fetch(anvilUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message ?? 'failed'}`);
    return body.result;
  };
  await rpc('anvil_setCode', [TIP1034_ESCROW, escrowRuntime()]);
  const reader = createClient({ transport: http(anvilUrl) }).extend(publicActions);

  /** What the precompile would know about an `open` in this raw transaction, written into the contract first. */
  async function prepareOpen(raw: string): Promise<void> {
    if (!/^0x7[68]/i.test(raw)) return;
    let tx: ReturnType<typeof Transaction.deserialize>;
    try {
      tx = Transaction.deserialize(raw as Hex);
    } catch {
      return; // not a Tempo transaction the node would take either
    }
    const sender = (tx as { from?: `0x${string}` }).from;
    const calls = (tx as { calls?: Array<{ to?: string; data?: Hex }> }).calls ?? [];
    const open = calls.find((call) => call.to?.toLowerCase() === TIP1034_ESCROW.toLowerCase() && call.data);
    if (!sender || !open?.data) return;
    let decoded: ReturnType<typeof decodeFunctionData<typeof escrowAbi>>;
    try {
      decoded = decodeFunctionData({ abi: escrowAbi, data: open.data });
    } catch {
      return;
    }
    if (decoded.functionName !== 'open') return;
    const [, , token, deposit] = decoded.args;
    const { Channel } = Session.Precompile;
    const sponsored = (tx as { feePayerSignature?: unknown }).feePayerSignature != null;
    const nonceHash = Channel.computeExpiringNonceHash(
      Channel.transactionForExpiringNonceHash({
        ...(sponsored ? { feePayer: true } : {}),
        transaction: tx as never,
      }) as never,
      { sender },
    );
    await rpc('anvil_setStorageAt', [TIP1034_ESCROW, nonceHashSlot(sender), nonceHash]);
    const allowance = await reader
      .readContract({
        address: token,
        abi: tokenAbi,
        functionName: 'allowance',
        args: [sender, TIP1034_ESCROW],
      })
      .catch(() => 0n);
    if (allowance >= deposit) return;
    await rpc('anvil_impersonateAccount', [sender]);
    try {
      const hash = (await rpc('eth_sendTransaction', [
        {
          from: sender,
          to: token,
          data: encodeFunctionData({
            abi: tokenAbi,
            functionName: 'approve',
            args: [TIP1034_ESCROW, deposit],
          }),
        },
      ])) as Hex;
      await reader.waitForTransactionReceipt({ hash });
    } finally {
      await rpc('anvil_stopImpersonatingAccount', [sender]);
    }
  }

  // Preparations and their transactions go one at a time, so two opens by one payer cannot swap their hashes.
  let queue: Promise<unknown> = Promise.resolve();
  const serialize = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run);
    queue = next.catch(() => {});
    return next;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let requests: RpcRequest[] = [];
    try {
      const parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
      requests = Array.isArray(parsed) ? parsed : [parsed];
    } catch {
      // anvil answers the parse error itself
    }
    const raws = requests
      .filter((r) => r.method === 'eth_sendRawTransaction' || r.method === 'eth_sendRawTransactionSync')
      .map((r) => String(r.params?.[0] ?? ''));
    const forward = async () => {
      for (const raw of raws) await prepareOpen(raw).catch(() => {});
      return fetch(anvilUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    };
    try {
      const upstream = raws.length > 0 ? await serialize(forward) : await forward();
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (err) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
