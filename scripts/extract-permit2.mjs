// Writes src/devnet/permit2.json: the canonical Permit2 runtime bytecode (the code at
// 0x000000000022D473030F116dDEE9F6B43aC78BA3 on every chain), as Uniswap ships it in Permit2's DeployPermit2 test
// helper inside the npm package @uniswap/v4-periphery. Fetched with the ordinary npm client into a temporary
// folder; run by hand (`node scripts/extract-permit2.mjs`), nothing fetches at test or run time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = '@uniswap/v4-periphery@1.0.3';
const FILE = 'package/lib/permit2/test/utils/DeployPermit2.sol';
const OUT = 'src/devnet/permit2.json';

const dir = mkdtempSync(join(tmpdir(), 'permit2-'));
try {
  const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], {
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', ['xzf', join(dir, tarball), '-C', dir, FILE]);
  const source = readFileSync(join(dir, FILE), 'utf8');
  const match = /hex"([0-9a-f]+)"/.exec(source);
  if (!match) throw new Error(`no bytecode in ${FILE}`);
  const artifact = {
    contract: 'Permit2',
    address: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
    source: `${PACKAGE}: ${FILE.replace(/^package\//, '')}`,
    license: 'MIT (Uniswap Labs, Permit2)',
    runtime: `0x${match[1]}`,
  };
  writeFileSync(OUT, `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`${OUT}: ${(artifact.runtime.length - 2) / 2} bytes from ${PACKAGE}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
