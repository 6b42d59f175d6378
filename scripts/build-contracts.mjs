// Compiles the devnet's contracts with the npm solc package and writes their artifacts next to the devnet code:
// TestUSDC (EIP-3009) → src/devnet/test-usdc.json, TestUSDT (plain ERC-20) → src/devnet/test-usdt.json (ABI +
// creation bytecode), and ExactPermit2Proxy → src/devnet/exact-permit2-proxy.json (ABI + runtime bytecode, set at
// the canonical proxy address), and TIP20ChannelEscrow → src/devnet/tip20-channel-escrow.json (ABI + runtime
// bytecode, set at the TIP-1034 escrow address on the Tempo devnet). Run by hand after editing a contract (`node scripts/build-contracts.mjs`); nothing
// compiles at test or run time.
import { readFileSync, writeFileSync } from 'node:fs';
import solc from 'solc';

const CONTRACTS = [
  { name: 'TestUSDC', out: 'src/devnet/test-usdc.json', code: 'bytecode' },
  { name: 'TestUSDT', out: 'src/devnet/test-usdt.json', code: 'bytecode' },
  { name: 'ExactPermit2Proxy', out: 'src/devnet/exact-permit2-proxy.json', code: 'runtime' },
  { name: 'TIP20ChannelEscrow', out: 'src/devnet/tip20-channel-escrow.json', code: 'runtime' },
];

const sourceOf = (name) => `contracts/${name}.sol`;
const input = {
  language: 'Solidity',
  sources: Object.fromEntries(
    CONTRACTS.map(({ name }) => [sourceOf(name), { content: readFileSync(sourceOf(name), 'utf8') }]),
  ),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Cancun is supported by anvil and by every chain kasir settles on; later opcodes are not needed.
    evmVersion: 'cancun',
    outputSelection: Object.fromEntries(
      CONTRACTS.map(({ name }) => [
        sourceOf(name),
        { [name]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      ]),
    ),
  },
};

const started = performance.now();
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const problems = output.errors ?? [];
for (const problem of problems) console.error(problem.formattedMessage);
if (problems.some((problem) => problem.severity === 'error')) process.exit(1);

for (const { name, out, code } of CONTRACTS) {
  const compiled = output.contracts[sourceOf(name)][name];
  const bytes = code === 'runtime' ? compiled.evm.deployedBytecode.object : compiled.evm.bytecode.object;
  const artifact = { contract: name, solc: solc.version(), abi: compiled.abi, [code]: `0x${bytes}` };
  writeFileSync(out, `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`${out}: ${name}, solc ${artifact.solc}, ${bytes.length / 2} bytes (${code})`);
}
console.log(`${Math.round(performance.now() - started)} ms`);
