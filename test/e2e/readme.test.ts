// The README runs as written: every code block marked `<!-- runnable -->` runs against a devnet and a started kasir
// (shell blocks in bash, JavaScript blocks as ES modules in the repository, so the packages resolve), and must exit
// 0 having been paid; the one change made to a block is the address (`localhost:8402`, `data/devnet.json`) of this
// test's kasir and devnet files. A block marked `<!-- runnable: starts servers -->` starts its own (the devnet and
// `npm start`): it runs as written in a scratch directory of links to the checkout's files (a clone as a newcomer
// has it, with dist/ built), with PORT set to a free port in place of 8402; the runnable blocks after it in its
// section run there against what it started, which is stopped (SIGTERM to its process group) after them. Every
// shell or JavaScript block is marked: runnable, the install line, or `<!-- not run: <reason> -->`, so none escapes
// unnoticed. The `<!-- install -->` line must name the versions package.json pins.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDevnet, startDevnet, writeDevnetFiles } from '../../src/devnet/command.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { buildIfStale } from '../support/built.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** The languages whose blocks must be marked: a reader runs them. */
const CODE = new Set(['sh', 'bash', 'js', 'ts', 'mjs']);

interface Block {
  marker: 'runnable' | 'starts servers' | 'install' | 'not run' | undefined;
  lang: string;
  code: string;
  line: number;
  /** The `## ` section the block is in. */
  section: string;
}

/** Every fenced block with a language, and the marker on the line before it, if any. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (text.startsWith('## ')) section = text;
    const fence = /^```(\w*)/.exec(text);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    const before = lines[i - 1]?.trim() ?? '';
    const marker = /^<!-- runnable -->$/.test(before)
      ? 'runnable'
      : /^<!-- runnable: starts servers -->$/.test(before)
        ? 'starts servers'
        : /^<!-- install -->$/.test(before)
          ? 'install'
          : /^<!-- not run: \S.* -->$/.test(before)
            ? 'not run'
            : undefined;
    if (fence[1])
      blocks.push({ marker, lang: fence[1], code: lines.slice(i + 1, end).join('\n'), line: i + 2, section });
    i = end;
  }
  return blocks;
}

const blocks = fencedBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'));
const starters = blocks.filter((b) => b.marker === 'starts servers');
/** The runnable blocks after a block that starts servers, in its section: they run against those servers. */
const after = (starter: Block) =>
  blocks.filter((b) => b.marker === 'runnable' && b.section === starter.section && b.line > starter.line);
const runnable = blocks.filter((b) => b.marker === 'runnable' && !starters.some((s) => after(s).includes(b)));
const MODEL = 'self-hosted/kasir-devnet-echo';

describe('the README', () => {
  it('marks every shell and JavaScript block: runnable, the install line, or not run with a reason', () => {
    const unmarked = blocks
      .filter((b) => CODE.has(b.lang) && b.marker === undefined)
      .map((b) => `${b.lang} block at README.md:${b.line}`);
    expect(unmarked, 'mark each <!-- runnable --> or <!-- not run: <reason> -->').toEqual([]);
    // A block in another language is not run: a runnable marker on it would promise what this test does not do.
    const misplaced = blocks.filter(
      (b) => !CODE.has(b.lang) && b.marker !== undefined && b.marker !== 'not run',
    );
    expect(misplaced.map((b) => `${b.lang} block at README.md:${b.line}`)).toEqual([]);
  });

  it('has runnable blocks, and its install line pins the versions kasir uses', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    expect(starters).toHaveLength(1);
    expect(after(starters[0] as Block).length).toBeGreaterThanOrEqual(1);
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
        const stdout = await runBlock(block, adapt(block.code), root, { ...process.env, KASIR_KEY: key });
        expectPaid(block, stdout);
      },
      30_000,
    );
  });

  describe.each(starters.map((b) => [`${b.lang} block at README.md:${b.line}`, b] as const))(
    'the %s, which starts servers, run as written, and the blocks after it',
    (_name, starter) => {
      let scratch: string;
      let port: number;
      let servers: ChildProcess | undefined;
      let output = '';
      beforeAll(async () => {
        // dist/ built as `npm start` and `npx kasir` build it (once; later starts skip the build).
        buildIfStale();
        scratch = mkdtempSync(path.join(tmpdir(), 'kasir-readme-clone-'));
        for (const file of CHECKOUT) symlinkSync(path.join(root, file), path.join(scratch, file));
        port = await freePort();
      }, 300_000);
      afterAll(async () => {
        if (servers?.pid) await stopGroup(servers.pid);
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      });

      /** The block with the free port in place of 8402 (kasir is told it by PORT). */
      const adapt = (code: string) => code.replaceAll('localhost:8402', `localhost:${port}`);
      const env = () => {
        const { KASIR_KEY: _key, ...rest } = process.env;
        return { ...rest, PORT: String(port) };
      };

      it('starts the devnet and kasir, and returns once kasir answers', async () => {
        servers = spawn('bash', ['-euo', 'pipefail', '-c', adapt(starter.code)], {
          cwd: scratch,
          env: env(),
          detached: true, // its own process group: what it started in the background is stopped with it
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        servers.stdout?.on('data', (chunk) => {
          output += chunk;
        });
        servers.stderr?.on('data', (chunk) => {
          output += chunk;
        });
        const exited = once(servers, 'exit') as Promise<[number | null]>;
        const [code] = await Promise.race([
          exited,
          sleep(150_000, undefined, { ref: false }).then(() => [`still waiting after 150 s`] as const),
        ]);
        expect(code, output).toBe(0);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      }, 180_000);

      it.each(after(starter).map((b) => [`${b.lang} block at README.md:${b.line}`, b] as const))(
        'runs the %s against them',
        async (_name, block) => {
          const stdout = await runBlock(block, adapt(block.code), scratch, env());
          expectPaid(block, stdout);
          // The account the block made paid: the answer states what it was charged.
          expect(stdout).toMatch(/"costMicroUsd":\s*[1-9]\d*/);
        },
        60_000,
      );
    },
  );
});

/** What a clone of the repository holds that `npm start` and `npx kasir` use (dist/ as built). */
const CHECKOUT = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts',
  'src',
  'bin',
  'dist',
  'node_modules',
];

/** Runs a block (its code as adapted): a shell block in bash, a JavaScript block as an ES module. Its stdout. */
async function runBlock(block: Block, code: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (block.lang === 'sh' || block.lang === 'bash')
    return (await run('bash', ['-euo', 'pipefail', '-c', code], { env, cwd })).stdout;
  expect(block.lang).toBe('js');
  // In the repository, so the packages resolve.
  const scratch = path.join(root, 'test-artifacts', 'readme');
  mkdirSync(scratch, { recursive: true });
  const file = path.join(scratch, `block-${block.line}.mjs`);
  writeFileSync(file, code);
  return (await run(process.execPath, [file], { env, cwd })).stdout;
}

/** Every runnable block makes a paid call: the echo model's answer, and over HTTP status 200, over MCP a cost. */
function expectPaid(block: Block, stdout: string): void {
  expect(stdout).toMatch(/Echo: H(ello|alo)/);
  if (block.code.includes('@modelcontextprotocol/sdk')) expect(stdout).toMatch(/ [1-9]\d* micro-USD/);
  else if (block.lang === 'js') expect(stdout).toMatch(/^200 /);
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** SIGTERM to a process group, then SIGKILL to what is left of it after 20 s. */
async function stopGroup(pgid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pgid, 'SIGTERM');
  for (let i = 0; i < 200 && alive(); i++) await sleep(100);
  if (alive()) process.kill(-pgid, 'SIGKILL');
}
