// Runs a local anvil node (the @foundry-rs/anvil npm package's binary) on 127.0.0.1 for the devnet and tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface AnvilOptions {
  chainId?: number;
  /** Port on 127.0.0.1; anvil picks a free one when omitted. */
  port?: number;
  extraArgs?: string[];
}

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 3_000;

// Nodes still running, killed if this process exits without stopping them.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** The anvil binary from the platform package that @foundry-rs/anvil installs (e.g. @foundry-rs/anvil-linux-amd64). */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const file = `${pkg}/bin/${process.platform === 'win32' ? 'anvil.exe' : 'anvil'}`;
  const here = createRequire(import.meta.url);
  // The platform package is normally hoisted next to @foundry-rs/anvil, but may sit inside it.
  const resolvers = [
    () => here.resolve(file),
    () => createRequire(here.resolve('@foundry-rs/anvil/package.json')).resolve(file),
  ];
  for (const resolve of resolvers) {
    try {
      const path = resolve();
      if (existsSync(path)) return path;
    } catch {
      // try the next place
    }
  }
  throw new Error(
    `anvil binary not found: ${pkg} is not installed. Install the @foundry-rs/anvil package ` +
      `(with its optional dependencies) on ${process.platform}/${process.arch}.`,
  );
}

/** Starts anvil with its default dev accounts (mnemonic "test test ... junk") and waits until it answers RPC. */
export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const chainId = opts.chainId ?? 31337;
  // Port 0 lets anvil bind a free port itself (no race with other nodes); it prints the one it got. `--quiet`
  // would hide that line too, so its log lines are read and dropped instead.
  const args = ['--host', '127.0.0.1', '--port', String(opts.port ?? 0), '--chain-id', String(chainId)];
  const child = spawn(anvilBinaryPath(), [...args, '--color', 'never', ...(opts.extraArgs ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    running.delete(child);
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    const port = await listeningPort(child);
    const rpcUrl = `http://127.0.0.1:${port}`;
    const answered = await waitForChainId(rpcUrl);
    if (answered !== chainId) {
      throw new Error(`anvil on ${rpcUrl} reports chain ${answered}, expected ${chainId}`);
    }
    return { rpcUrl, chainId, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    // Nothing more is needed from its output; keep the pipes drained.
    child.stdout?.removeAllListeners('data').resume();
    child.stderr?.removeAllListeners('data').resume();
  }
}

/** The port from anvil's "Listening on 127.0.0.1:PORT" line; rejects with its output if it exits first. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`anvil did not start within ${READY_TIMEOUT_MS} ms: ${output.trim()}`)),
      READY_TIMEOUT_MS,
    );
    const settle = (result: () => void) => {
      clearTimeout(timer);
      result();
    };
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-16_000); // the banner grows with --accounts
      const match = /Listening on [^\s]*:(\d+)/.exec(output);
      if (match?.[1]) settle(() => resolve(Number(match[1])));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) =>
      settle(() => reject(new Error(`anvil could not be started: ${error.message}`))),
    );
    child.once('exit', (code, signal) =>
      settle(() =>
        reject(new Error(`anvil exited (${signal ?? code}) before it was ready: ${output.trim()}`)),
      ),
    );
  });
}

async function waitForChainId(rpcUrl: string): Promise<number> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answered = await rpcChainId(rpcUrl);
    if (answered !== undefined) return answered;
    if (Date.now() > deadline) throw new Error(`anvil did not answer eth_chainId on ${rpcUrl}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const node of running) node.kill('SIGKILL');
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: string };
    return typeof body.result === 'string' ? Number(body.result) : undefined;
  } catch {
    return undefined;
  }
}
