/**
 * Finds a Tempo charge on chain by its challenge: the TIP-20 `TransferWithMemo` from the payer to the recipient, of the
 * amount, whose memo is mppx's attribution memo bound to this server (bytes 5–14: keccak256(realm)[0..9]) and this
 * challenge (bytes 25–31: keccak256(challenge id)[0..6]). A pull payment whose broadcast a dead process started may
 * have landed: this says whether it did, so its answer can be made again (it cannot land later: mppx's client signs it
 * valid for about 25 s).
 */
import { createClient, defineChain, http, keccak256, parseAbi, publicActions, stringToHex } from 'viem';
import { tempo as tempoMainnet } from 'viem/chains';
import type { MppTempoConfig } from '../../config/mpp.js';

const transferWithMemo = parseAbi([
  'event TransferWithMemo(address indexed from, address indexed to, uint256 amount, bytes32 indexed memo)',
]);
/** How far back (in blocks) a charge is looked for: far more than a pull payment lives. */
const LOOKBACK_BLOCKS = 10_000n;

export type ChargeLookup = (charge: {
  payer: `0x${string}`;
  challengeId: string;
  realm: string;
  amount: bigint;
}) => Promise<`0x${string}` | null>;

export function chargeLookup(config: MppTempoConfig): ChargeLookup {
  const chain = defineChain({
    ...tempoMainnet,
    id: config.chainId,
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const client = createClient({ chain, transport: http(config.rpcUrl, { timeout: 10_000 }) }).extend(
    publicActions,
  );
  const slice = (hex: string, from: number, to: number) => hex.slice(2 + from * 2, 2 + to * 2).toLowerCase();
  return async ({ payer, challengeId, realm, amount }) => {
    const server = slice(keccak256(stringToHex(realm)), 0, 10);
    const nonce = slice(keccak256(stringToHex(challengeId)), 0, 7);
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const logs = await client.getContractEvents({
      address: config.currency,
      abi: transferWithMemo,
      eventName: 'TransferWithMemo',
      args: { from: payer, to: config.recipient },
      fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
      toBlock: 'latest',
    });
    const found = logs.find(
      (log) =>
        log.args.amount === amount &&
        typeof log.args.memo === 'string' &&
        slice(log.args.memo, 5, 15) === server &&
        slice(log.args.memo, 25, 32) === nonce,
    );
    return found?.transactionHash ?? null;
  };
}
