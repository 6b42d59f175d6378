/**
 * Settings of the x402 wallet rails: one block of `X402_<CHAIN>_*` variables per chain (Base, Solana, Algorand,
 * BNB Smart Chain), each with mainnet defaults and a testnet preset. A chain is on when its PAY_TO is set.
 */
import { z } from 'zod';
import type { SettingsArea } from './setting.js';

/** The route families a chain is sold on: /x402/* (Base, Solana), /a402/* (Algorand), /b402/* (BNB Smart Chain). */
export const X402_FAMILIES = ['x402', 'a402', 'b402'] as const;
export type X402Family = (typeof X402_FAMILIES)[number];

/** The settings that turn on each family's chains (named by the 503 of a family that is off). */
export const X402_FAMILY_SETTINGS: Record<X402Family, readonly string[]> = {
  x402: ['KASIR_PAY_TO', 'X402_BASE_PAY_TO', 'X402_SOLANA_PAY_TO'],
  a402: ['X402_ALGORAND_PAY_TO'],
  b402: ['X402_BNB_PAY_TO'],
};
export type ChainKind = 'evm' | 'svm' | 'avm';
export type ChainId = 'base' | 'solana' | 'algorand' | 'bnb';

export interface X402ChainConfig {
  id: ChainId;
  family: X402Family;
  kind: ChainKind;
  /** CAIP-2 network id. */
  network: string;
  /** Where payments go (an address on this chain). */
  payTo: string;
  /** Token contracts (EVM), SPL mints (Solana) or ASA ids (Algorand) accepted; stablecoins pegged to the USD. */
  assets: string[];
  /** JSON-RPC (EVM, Solana) or algod (Algorand) URL the in-process facilitator settles through. */
  rpcUrl: string;
  /** The settling signer's secret (EVM hex key, Solana base58 secret key, Algorand base64 secret key). */
  signerKey: string | undefined;
  /** A remote facilitator that verifies and settles instead of the in-process one. */
  facilitatorUrl: string | undefined;
}

export interface X402Config {
  chains: X402ChainConfig[];
  /** How long a payment authorization must stay valid (the challenge's maxTimeoutSeconds). */
  maxTimeoutSeconds: number;
}

interface Preset {
  network: string;
  rpcUrl: string;
  assets: string[];
  /** A public facilitator (no API key) that settles when the operator names neither a signer nor a facilitator. */
  facilitatorUrl?: string;
}

/** The one payout address that turns on x402 on Base and the MPP Tempo charge (each chain's own setting wins). */
export const KASIR_PAY_TO = 'KASIR_PAY_TO';

/** Per chain: its family, kind, and the defaults of its networks (the first is the default network). */
const CHAINS: Record<ChainId, { family: X402Family; kind: ChainKind; presets: Preset[] }> = {
  base: {
    family: 'x402',
    kind: 'evm',
    presets: [
      {
        network: 'eip155:8453',
        rpcUrl: 'https://mainnet.base.org',
        assets: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'], // USDC
        // Listed among x402's public facilitators; settles on Base mainnet without an API key.
        facilitatorUrl: 'https://facilitator.payai.network',
      },
      {
        network: 'eip155:84532',
        rpcUrl: 'https://sepolia.base.org',
        assets: ['0x036CbD53842c5426634e7929541eC2318f3dCF7e'], // USDC (Base Sepolia)
        facilitatorUrl: 'https://x402.org/facilitator', // x402's own public testnet facilitator
      },
    ],
  },
  solana: {
    family: 'x402',
    kind: 'svm',
    presets: [
      {
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        rpcUrl: 'https://api.mainnet-beta.solana.com',
        assets: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'], // USDC
      },
      {
        network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
        rpcUrl: 'https://api.devnet.solana.com',
        assets: ['4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'], // USDC (devnet)
      },
    ],
  },
  algorand: {
    family: 'a402',
    kind: 'avm',
    presets: [
      {
        network: 'algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k',
        rpcUrl: 'https://mainnet-api.algonode.cloud',
        assets: ['31566704'], // USDC
      },
      {
        network: 'algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDe',
        rpcUrl: 'https://testnet-api.algonode.cloud',
        assets: ['10458941'], // USDC (testnet)
      },
    ],
  },
  bnb: {
    family: 'b402',
    kind: 'evm',
    presets: [
      {
        network: 'eip155:56',
        rpcUrl: 'https://bsc-dataseed.bnbchain.org',
        // USD1 settles by EIP-3009; USDT and USDC on BSC have no EIP-3009 and settle through Permit2 (offered only
        // where x402's exact Permit2 proxy is deployed: see evm-chain.ts).
        assets: [
          '0x8d0D000Ee44948FC98c9B98A4FA4921476f08B0d', // USD1
          '0x55d398326f99059fF775485246999027B3197955', // USDT
          '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', // USDC
        ],
      },
      { network: 'eip155:97', rpcUrl: 'https://data-seed-prebsc-1-s1.bnbchain.org:8545', assets: [] },
    ],
  },
};

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const settingNames = (id: ChainId) => {
  const p = `X402_${id.toUpperCase()}`;
  return {
    payTo: `${p}_PAY_TO`,
    network: `${p}_NETWORK`,
    assets: id === 'bnb' ? `${p}_ASSETS` : `${p}_ASSET`,
    rpcUrl: id === 'algorand' ? `${p}_ALGOD_URL` : `${p}_RPC_URL`,
    signerKey: `${p}_PRIVATE_KEY`,
    facilitatorUrl: `${p}_FACILITATOR_URL`,
  };
};

/** The zod shape of every x402 setting (merged into the configuration's schema). */
export const x402EnvShape = {
  X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  [KASIR_PAY_TO]: optional,
  ...Object.fromEntries(
    (Object.keys(CHAINS) as ChainId[]).flatMap((id) =>
      Object.values(settingNames(id)).map((n) => [n, optional]),
    ),
  ),
} as Record<string, z.ZodType>;

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const ALGORAND_ADDRESS = /^[A-Z2-7]{58}$/;
const ADDRESS: Record<ChainKind, RegExp> = { evm: EVM_ADDRESS, svm: BASE58_ADDRESS, avm: ALGORAND_ADDRESS };
const ASSET: Record<ChainKind, RegExp> = { evm: EVM_ADDRESS, svm: BASE58_ADDRESS, avm: /^[0-9]{1,20}$/ };

/** Reads the x402 settings out of the validated environment; problems are pushed, one line each. */
export function parseX402(values: Record<string, unknown>, problems: string[]): X402Config {
  const chains: X402ChainConfig[] = [];
  for (const [id, chain] of Object.entries(CHAINS) as Array<[ChainId, (typeof CHAINS)[ChainId]]>) {
    const names = settingNames(id);
    const read = (name: string) => values[name] as string | undefined;
    const payTo = read(names.payTo) ?? (id === 'base' ? read(KASIR_PAY_TO) : undefined);
    if (!payTo) continue;
    const network = read(names.network) ?? (chain.presets[0] as Preset).network;
    const preset = chain.presets.find((p) => p.network === network);
    const kindPrefix = { evm: 'eip155:', svm: 'solana:', avm: 'algorand:' }[chain.kind];
    if (!network.startsWith(kindPrefix)) {
      problems.push(`${names.network}: "${network}" is not a ${kindPrefix}… network (CAIP-2)`);
      continue;
    }
    const rpcUrl = read(names.rpcUrl) ?? preset?.rpcUrl;
    const assets = (read(names.assets)?.split(',') ?? preset?.assets ?? [])
      .map((a) => a.trim())
      .filter(Boolean);
    const signerKey = read(names.signerKey);
    const facilitatorUrl = read(names.facilitatorUrl) ?? (signerKey ? undefined : preset?.facilitatorUrl);
    if (!ADDRESS[chain.kind].test(payTo)) {
      problems.push(`${read(names.payTo) ? names.payTo : KASIR_PAY_TO}: not a ${chain.kind} address`);
    }
    if (!rpcUrl) problems.push(`${names.rpcUrl}: needed for ${network} (no default for this network)`);
    if (assets.length === 0)
      problems.push(`${names.assets}: needed for ${network} (no default for this network)`);
    for (const a of assets)
      if (!ASSET[chain.kind].test(a)) problems.push(`${names.assets}: "${a}" is not an asset id`);
    if (!signerKey && !facilitatorUrl) {
      problems.push(
        `${names.signerKey} or ${names.facilitatorUrl}: one is needed to settle payments on ${id}`,
      );
    }
    for (const [name, url] of [
      [names.rpcUrl, rpcUrl],
      [names.facilitatorUrl, facilitatorUrl],
    ] as const) {
      if (url && !URL.canParse(url)) problems.push(`${name}: not a URL`);
    }
    chains.push({
      id,
      family: chain.family,
      kind: chain.kind,
      network,
      payTo,
      assets,
      rpcUrl: rpcUrl ?? '',
      signerKey,
      facilitatorUrl,
    });
  }
  return { chains, maxTimeoutSeconds: values.X402_MAX_TIMEOUT_SECONDS as number };
}

/** One variable of every chain's block (`X402_<C>_…`). */
const perChain = (setting: keyof ReturnType<typeof settingNames>) =>
  (Object.keys(CHAINS) as ChainId[]).map((id) => settingNames(id)[setting]);

export const x402Settings: SettingsArea = {
  name: 'x402',
  shape: x402EnvShape,
  rows: [
    {
      vars: ['KASIR_PAY_TO'],
      default: '(off)',
      meaning: 'One 0x payout address for x402 on Base and MPP on Tempo (see above).',
    },
    {
      vars: perChain('payTo'),
      label: '`X402_<C>_PAY_TO`',
      default: '(chain off)',
      meaning: 'Address receiving payments on that chain.',
    },
    {
      vars: perChain('network'),
      label: '`X402_<C>_NETWORK`',
      default:
        'mainnet: `eip155:8453`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`, `algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k`, `eip155:56`',
      meaning:
        'CAIP-2 id; the testnets `eip155:84532`, `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`, `algorand:SGO1GKSzyE7IEPItTxCByw9x8FmnrCDe`, `eip155:97` get their own defaults below.',
    },
    {
      vars: perChain('assets'),
      label: '`X402_<C>_ASSET` (`X402_BNB_ASSETS`, comma-separated)',
      default:
        'USDC of that network (BNB: USD1 `0x8d0D…8B0d`, USDT `0x55d3…7955`, USDC `0x8AC7…580d`; none on `eip155:97`)',
      meaning: 'Token contract, SPL mint or ASA id. EVM tokens without EIP-3009 are paid through Permit2.',
    },
    {
      vars: perChain('rpcUrl'),
      label: '`X402_<C>_RPC_URL` (`X402_ALGORAND_ALGOD_URL`)',
      default: "the network's public endpoint",
      meaning: 'Node the in-process facilitator verifies and settles through.',
    },
    {
      vars: perChain('signerKey'),
      label: '`X402_<C>_PRIVATE_KEY`',
      default: '—',
      meaning:
        'The settling signer: EVM hex key (pays gas), Solana base58 secret key (fee payer), Algorand base64 secret key (fee payer). A secret: never logged.',
    },
    {
      vars: perChain('facilitatorUrl'),
      label: '`X402_<C>_FACILITATOR_URL`',
      default: 'Base without a signer key: the public facilitator above; else —',
      meaning:
        'A remote x402 facilitator (`/verify`, `/settle`, `/supported`) instead of the in-process one.',
    },
    {
      vars: ['X402_MAX_TIMEOUT_SECONDS'],
      default: '`300`',
      meaning: "How long a payment must stay valid (the challenge's `maxTimeoutSeconds`).",
    },
  ],
};
