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
/** The escrow's address as it appears in JSON-RPC requests (lower-case hex without 0x, to match any casing below). */
const ESCROW_HEX = TIP1034_ESCROW.slice(2).toLowerCase();
/** What a simulated `open` finds as its transaction's hash (any non-zero value costs the same gas as the real one). */
const SIMULATION_NONCE_HASH = keccak256('0x6b61736972');
/** The requests that simulate a transaction (a client filling or estimating one, a server checking it). */
const SIMULATIONS = new Set(['eth_call', 'eth_estimateGas', 'eth_fillTransaction']);
/** The base cost of an Ethereum transaction, which a call estimated on its own includes. */
const BASE_TX_GAS = 21_000n;

/** anvil's eth_fillTransaction answers (by request id) with each filled transaction's gas raised by `extra`. */
function withFilledGas(text: string, extra: Map<unknown, bigint>): string {
  try {
    const parsed = JSON.parse(text) as RpcAnswer | RpcAnswer[];
    for (const answer of Array.isArray(parsed) ? parsed : [parsed]) {
      const add = extra.get(answer.id);
      const tx = answer.result?.tx;
      if (add && tx?.gas) tx.gas = `0x${(BigInt(tx.gas) + add).toString(16)}`;
    }
    return JSON.stringify(parsed);
  } catch {
    return text;
  }
}

interface RpcAnswer {
  id?: unknown;
  result?: { tx?: { gas?: string } };
}
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

  /** The token and deposit of an escrow `open` call's data, or null for any other call. */
  function openOf(to: unknown, data: unknown): { token: `0x${string}`; deposit: bigint } | null {
    if (typeof to !== 'string' || to.toLowerCase() !== TIP1034_ESCROW.toLowerCase()) return null;
    if (typeof data !== 'string') return null;
    try {
      const decoded = decodeFunctionData({ abi: escrowAbi, data: data as Hex });
      if (decoded.functionName !== 'open') return null;
      const [, , token, deposit] = decoded.args;
      return { token, deposit };
    } catch {
      return null;
    }
  }

  /** Writes the open's expiring-nonce hash for `sender` and makes sure the escrow may take the deposit. */
  async function prepare(
    sender: `0x${string}`,
    open: { token: `0x${string}`; deposit: bigint },
    nonceHash: Hex,
  ) {
    await rpc('anvil_setStorageAt', [TIP1034_ESCROW, nonceHashSlot(sender), nonceHash]);
    const allowance = await reader
      .readContract({
        address: open.token,
        abi: tokenAbi,
        functionName: 'allowance',
        args: [sender, TIP1034_ESCROW],
      })
      .catch(() => 0n);
    if (allowance >= open.deposit) return;
    await rpc('anvil_impersonateAccount', [sender]);
    try {
      // The node checks the impersonated sender's native balance for gas (a Tempo account has none): give it some.
      await rpc('anvil_setBalance', [sender, '0xde0b6b3a7640000']);
      const hash = (await rpc('eth_sendTransaction', [
        {
          from: sender,
          to: open.token,
          data: encodeFunctionData({
            abi: tokenAbi,
            functionName: 'approve',
            args: [TIP1034_ESCROW, open.deposit],
          }),
        },
      ])) as Hex;
      await reader.waitForTransactionReceipt({ hash });
    } finally {
      await rpc('anvil_stopImpersonatingAccount', [sender]);
    }
  }

  /** A raw transaction about to be broadcast: its `open` gets the transaction's own expiring-nonce hash. */
  async function prepareRaw(raw: string): Promise<void> {
    if (!/^0x7[68]/i.test(raw)) return;
    let tx: ReturnType<typeof Transaction.deserialize>;
    try {
      tx = Transaction.deserialize(raw as Hex);
    } catch {
      return; // not a Tempo transaction the node would take either
    }
    const sender = (tx as { from?: `0x${string}` }).from;
    const calls = (tx as { calls?: Array<{ to?: string; data?: Hex }> }).calls ?? [];
    const open = calls.map((call) => openOf(call.to, call.data)).find((o) => o !== null);
    if (!sender || !open) return;
    const { Channel } = Session.Precompile;
    const sponsored = (tx as { feePayerSignature?: unknown }).feePayerSignature != null;
    const nonceHash = Channel.computeExpiringNonceHash(
      Channel.transactionForExpiringNonceHash({
        ...(sponsored ? { feePayer: true } : {}),
        transaction: tx as never,
      }) as never,
      { sender },
    );
    await prepare(sender, open, nonceHash);
  }

  /**
   * A simulated `open` (eth_call, eth_estimateGas: a client estimating its gas, a server checking before it
   * broadcasts) runs as it will for real: a stand-in hash (the real one is written at broadcast) and the allowance.
   */
  async function prepareSimulation(request: unknown): Promise<void> {
    const r = request as {
      from?: `0x${string}`;
      to?: string;
      data?: string;
      input?: string;
      calls?: unknown[];
    };
    if (!r?.from) return;
    const calls = (r.calls ?? [{ to: r.to, data: r.data ?? r.input }]) as Array<{
      to?: string;
      data?: string;
      input?: string;
    }>;
    const open = calls.map((call) => openOf(call.to, call.data ?? call.input)).find((o) => o !== null);
    if (open) await prepare(r.from, open, SIMULATION_NONCE_HASH);
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
    // Only what calls the escrow waits its turn (another payment's broadcast may take a while to be answered).
    const callsEscrow = (r: RpcRequest) =>
      JSON.stringify(r.params ?? '')
        .toLowerCase()
        .includes(ESCROW_HEX);
    const raws = requests
      .filter((r) => r.method === 'eth_sendRawTransaction' || r.method === 'eth_sendRawTransactionSync')
      .filter(callsEscrow)
      .map((r) => String(r.params?.[0] ?? ''));
    const simulations = requests.filter((r) => SIMULATIONS.has(r.method ?? '')).filter(callsEscrow);
    const touches = raws.length > 0 || simulations.length > 0;
    const post = () =>
      fetch(anvilUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    try {
      let out: string;
      let status: number;
      if (!touches) {
        const upstream = await post();
        status = upstream.status;
        out = await upstream.text();
      } else {
        ({ status, out } = await serialize(async () => {
          // A preparation that fails leaves the transaction to revert as it would have: nothing to add here.
          for (const raw of raws) await prepareRaw(raw).catch(() => {});
          const extra = new Map<unknown, bigint>();
          for (const r of simulations) {
            await prepareSimulation(r.params?.[0]).catch(() => {});
            if (r.method === 'eth_fillTransaction') extra.set(r.id, await escrowCallGas(r.params?.[0]));
          }
          const upstream = await post();
          const text = await upstream.text();
          return { status: upstream.status, out: extra.size > 0 ? withFilledGas(text, extra) : text };
        }));
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(out);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
    }
  }

  /**
   * What a Tempo transaction's calls into the escrow cost beyond what anvil's eth_fillTransaction counts: it
   * estimates a 0x76 transaction as if its calls were empty (enough for the precompiles, not for contract code),
   * so each escrow call's own cost is estimated on its own (less the base cost of a transaction) and added.
   */
  async function escrowCallGas(request: unknown): Promise<bigint> {
    const r = request as {
      from?: string;
      to?: string;
      data?: string;
      input?: string;
      calls?: Array<{ to?: string; data?: string; input?: string }>;
    };
    let extra = 0n;
    for (const call of r?.calls ?? [{ to: r?.to, data: r?.data, input: r?.input }]) {
      if (call.to?.toLowerCase() !== TIP1034_ESCROW.toLowerCase()) continue;
      const gas = await rpc('eth_estimateGas', [
        { from: r.from, to: call.to, data: call.data ?? call.input },
      ]).catch(() => null);
      if (typeof gas === 'string') extra += BigInt(gas) - BASE_TX_GAS;
    }
    return extra;
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
