/**
 * `kasir devnet`: local chains to try the wallet rails with no real money. Starts an EVM chain (anvil) with an
 * EIP-3009 USDC-like token and a funded payer (x402), a Tempo-mode chain (anvil --network tempo) with funded
 * payers (MPP), and a deterministic local chat model (an OpenAI-compatible server kasir sells as a self-hosted
 * model); prints one JSON line on stdout once ready — `env` (every setting kasir needs to accept payments on
 * them and sell the model), `evm` (the chain, the token and the payer's key), `tempo` (the chain, the currency and
 * the payers' keys) and `model` — and runs until SIGTERM or SIGINT. Everything else goes to stderr.
 * `--env-out PATH` also writes `env` there as KEY=value lines, and `--json-out PATH` the whole line, each
 * atomically (a temporary file renamed into place; the JSON first), for kasir's KASIR_ENV_FILE and for clients;
 * both are removed when the devnet stops, so no stale settings outlive it. (Not `--env-file`: Node 20 takes that
 * flag as its own even after the script name, and exits when the file is not there yet.)
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ECHO_MODEL, startEchoModel } from './echo-model.js';
import { type EvmDevnet, startEvmDevnet } from './evm.js';
import { startTempoDevnet, type TempoDevnet } from './tempo.js';

/** How many funded Tempo payers the devnet hands out: anvil takes one expiring-nonce payment per sender. */
const TEMPO_PAYERS = 10;

/** The settings that make kasir accept x402 payments on the devnet's chain (as its Base chain). */
export function kasirEnv(evm: EvmDevnet): Record<string, string> {
  return {
    X402_BASE_NETWORK: evm.network,
    X402_BASE_RPC_URL: evm.rpcUrl,
    X402_BASE_ASSET: evm.asset,
    X402_BASE_PAY_TO: evm.payTo,
    X402_BASE_PRIVATE_KEY: evm.facilitator.privateKey,
  };
}

/** The settings of MPP's Tempo charge paid to the devnet's recipient, and nothing else (no fees paid, no refunds). */
export function tempoChargeEnv(tempo: TempoDevnet): Record<string, string> {
  return {
    MPP_TEMPO_RECIPIENT: tempo.recipient.address,
    MPP_TEMPO_RPC_URL: tempo.rpcUrl,
    MPP_TEMPO_CHAIN_ID: String(tempo.chainId),
    MPP_TEMPO_CURRENCY: tempo.currency,
  };
}

/**
 * The settings that make kasir accept MPP Tempo charges on the devnet's Tempo chain (fees sponsored; push payments
 * too, refunded from the payout wallet when their call fails) and payment channels on its TIP-1034 escrow.
 */
export function mppEnv(tempo: TempoDevnet): Record<string, string> {
  return {
    ...tempoChargeEnv(tempo),
    MPP_TEMPO_FEE_PAYER_KEY: tempo.feePayer.privateKey,
    MPP_TEMPO_REFUND_KEY: tempo.recipient.privateKey,
    MPP_CHANNEL_OPERATOR_KEY: tempo.channelOperator.privateKey,
    MPP_CHANNEL_ESCROW: tempo.escrow,
  };
}

/** The settings that make kasir sell the devnet's model (as `self-hosted/kasir-devnet-echo`, at the operator's price). */
export function modelEnv(baseUrl: string): Record<string, string> {
  return { SELF_HOSTED_BASE_URL: baseUrl };
}

/** `env` as KEY=value lines (values are URLs, addresses and hex keys: nothing to quote). */
export function envFileText(env: Record<string, string>): string {
  return `# written by \`kasir devnet\`; removed when it stops\n${Object.entries(env)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')}\n`;
}

/** Writes `text` to `file` so a reader sees either no file or all of it: a temporary file renamed into place. */
export function writeAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
}

/** A running devnet: its line (what `kasir devnet` prints) and how to stop it. */
export interface RunningDevnet {
  line: {
    env: Record<string, string>;
    evm: Record<string, unknown>;
    tempo: Record<string, unknown>;
    model: { baseUrl: string; id: string };
  };
  stop(): Promise<void>;
}

/** Starts the chains and the model; what `kasir devnet` runs, and tests in-process. */
export async function startDevnet(): Promise<RunningDevnet> {
  const model = await startEchoModel();
  const evm = await startEvmDevnet().catch(async (err) => {
    await model.stop();
    throw err;
  });
  const tempo = await startTempoDevnet().catch(async (err) => {
    await Promise.all([evm.stop(), model.stop()]);
    throw err;
  });
  const payers = [];
  for (let i = 0; i < TEMPO_PAYERS; i++) payers.push(await tempo.fundPayer());
  const line = {
    env: { ...kasirEnv(evm), ...mppEnv(tempo), ...modelEnv(model.baseUrl) },
    evm: {
      rpcUrl: evm.rpcUrl,
      network: evm.network,
      chainId: evm.chainId,
      asset: evm.asset,
      decimals: evm.decimals,
      payTo: evm.payTo,
      payer: evm.payer,
    },
    tempo: {
      rpcUrl: tempo.rpcUrl,
      chainId: tempo.chainId,
      currency: tempo.currency,
      escrow: tempo.escrow,
      recipient: tempo.recipient.address,
      // Each payer is good for one payment on anvil (one expiring-nonce transaction per sender).
      payers,
    },
    model: { baseUrl: model.baseUrl, id: ECHO_MODEL },
  };
  return {
    line,
    stop: async () => {
      await Promise.all([evm.stop(), tempo.stop(), model.stop()]);
    },
  };
}

/** Writes the devnet's files: the JSON first, so whoever waits for the env file (kasir) finds both. */
export function writeDevnetFiles(
  line: RunningDevnet['line'],
  files: { envFile?: string; jsonFile?: string },
) {
  if (files.jsonFile) writeAtomically(files.jsonFile, `${JSON.stringify(line, null, 2)}\n`);
  if (files.envFile) writeAtomically(files.envFile, envFileText(line.env));
}

export async function runDevnet(argv: string[] = []): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { 'env-out': { type: 'string' }, 'json-out': { type: 'string' } },
  });
  const envFile = values['env-out'];
  const jsonFile = values['json-out'];
  const devnet = await startDevnet();
  const { line } = devnet;
  writeDevnetFiles(line, { envFile, jsonFile });
  process.stdout.write(`${JSON.stringify(line)}\n`);
  console.error(
    `kasir devnet: ${line.evm.network} at ${line.evm.rpcUrl}, Tempo chain ${line.tempo.chainId} at ${line.tempo.rpcUrl}, ` +
      `model ${ECHO_MODEL} at ${line.model.baseUrl}${envFile ? `; settings in ${envFile}` : ''}; stop with Ctrl-C or SIGTERM`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  for (const file of [envFile, jsonFile]) if (file) rmSync(file, { force: true });
  await devnet.stop();
  return 0;
}
