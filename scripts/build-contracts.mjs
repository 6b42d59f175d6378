// Compiles contracts/TestUSDC.sol with the npm solc package and writes src/devnet/test-usdc.json (ABI + bytecode).
// Run by hand after editing the contract (`node scripts/build-contracts.mjs`); nothing compiles at test or run time.
import { readFileSync, writeFileSync } from 'node:fs';
import solc from 'solc';

const CONTRACT = 'TestUSDC';
const SOURCE = `contracts/${CONTRACT}.sol`;
const OUT = 'src/devnet/test-usdc.json';

const input = {
  language: 'Solidity',
  sources: { [SOURCE]: { content: readFileSync(SOURCE, 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Cancun is supported by anvil and by every chain kasir settles on; later opcodes are not needed.
    evmVersion: 'cancun',
    outputSelection: { [SOURCE]: { [CONTRACT]: ['abi', 'evm.bytecode.object'] } },
  },
};

const started = performance.now();
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const problems = output.errors ?? [];
for (const problem of problems) console.error(problem.formattedMessage);
if (problems.some((problem) => problem.severity === 'error')) process.exit(1);

const compiled = output.contracts[SOURCE][CONTRACT];
const artifact = {
  contract: CONTRACT,
  solc: solc.version(),
  abi: compiled.abi,
  bytecode: `0x${compiled.evm.bytecode.object}`,
};
writeFileSync(OUT, `${JSON.stringify(artifact, null, 2)}\n`);
console.log(
  `${OUT}: ${CONTRACT}, solc ${artifact.solc}, ${(artifact.bytecode.length - 2) / 2} bytes, ` +
    `${Math.round(performance.now() - started)} ms`,
);
