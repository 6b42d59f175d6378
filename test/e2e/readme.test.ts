// The README runs as written: every code block marked `<!-- runnable -->` runs against a devnet and a started kasir
// (shell blocks in bash, JavaScript blocks as ES modules in the repository, so the packages resolve), and must exit
// 0 having been paid; the one change made to a block is the address (`localhost:8402`, `data/devnet.json`) of this
// test's kasir and devnet files. The `<!-- install -->` line must name the versions package.json pins.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDevnet, startDevnet, writeDevnetFiles } from '../../src/devnet/command.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

interface Block {
  marker: 'runnable' | 'install';
  lang: string;
  code: string;
  line: number;
}

/** The fenced blocks right after a `<!-- runnable -->` or `<!-- install -->` line. */
function markedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- (runnable|install) -->$/.exec(lines[i]?.trim() ?? '')?.[1];
    const fence = /^```(\w+)/.exec(lines[i + 1] ?? '');
    if (!marker || !fence?.[1]) continue;
    const end = lines.indexOf('```', i + 2);
    blocks.push({
      marker: marker as Block['marker'],
      lang: fence[1],
      code: lines.slice(i + 2, end).join('\n'),
      line: i + 3,
    });
  }
  return blocks;
}

const blocks = markedBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'));
const runnable = blocks.filter((b) => b.marker === 'runnable');
const MODEL = 'self-hosted/kasir-devnet-echo';

describe('the README', () => {
  it('has runnable blocks, and its install line pins the versions kasir uses', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const pinned = { ...pkg.dependencies, ...pkg.devDependencies };
    const install = blocks.filter((b) => b.marker === 'install');
    expect(install).toHaveLength(1);
    const specs = (install[0]?.code ?? '').split(/\s+/).filter((w) => /^@?[\w/.-]+@\d/.test(w));
    expect(specs.length).toBeGreaterThanOrEqual(5);
    for (const spec of specs) {
      const at = spec.lastIndexOf('@');
      expect(pinned[spec.slice(0, at)], spec).toBe(spec.slice(at + 1));
    }
  });

  describe('runnable blocks against a devnet and kasir', () => {
    let devnet: RunningDevnet;
    let kasir: PaidKasir;
    let server: RunningServer;
    let dir: string;
    let key: string;
    beforeAll(async () => {
      devnet = await startDevnet();
      dir = mkdtempSync(path.join(tmpdir(), 'kasir-readme-'));
      writeDevnetFiles(devnet.line, { jsonFile: path.join(dir, 'devnet.json') });
      kasir = await startPaidKasir('sqlite', devnet.line.env);
      server = await startServer(kasir.app, '127.0.0.1', 0);
      key = (await kasir.fundedKey(5_000_000)).key;
      const models = await (await fetch(`${server.url}/v1/models`)).text();
      // The devnet's model is sold through SELF_HOSTED_BASE_URL: every runnable block pays for it.
      expect(models).toContain(`"${MODEL}"`);
    }, 60_000);
    afterAll(async () => {
      await server?.stop(1000);
      await kasir?.stop();
      await devnet?.stop();
    });

    /** The block with this test's addresses in place of the README's. */
    const adapt = (code: string) =>
      code
        .replaceAll('localhost:8402', server.url.replace(/^https?:\/\//, ''))
        .replaceAll('data/devnet.json', path.join(dir, 'devnet.json'));

    it.each(runnable.map((b) => [`${b.lang} block at README.md:${b.line}`, b] as const))(
      'runs the %s',
      async (_name, block) => {
        const env = { ...process.env, KASIR_KEY: key };
        let stdout: string;
        if (block.lang === 'sh') {
          ({ stdout } = await run('bash', ['-euo', 'pipefail', '-c', adapt(block.code)], { env, cwd: root }));
        } else {
          expect(block.lang).toBe('js');
          const scratch = path.join(root, 'test-artifacts', 'readme');
          mkdirSync(scratch, { recursive: true });
          const file = path.join(scratch, `block-${block.line}.mjs`);
          writeFileSync(file, adapt(block.code));
          ({ stdout } = await run(process.execPath, [file], { env, cwd: root }));
        }
        // Every runnable block makes a paid call: it answered 200 with the echo model's answer.
        expect(stdout).toMatch(/Echo: H(ello|alo)/);
        if (block.lang === 'js') expect(stdout).toMatch(/^200 /);
      },
      30_000,
    );
  });
});
