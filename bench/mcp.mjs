// MCP beside plain HTTP on the same built server: a cached paid tool (tools/exchange-rate, charged to a funded key)
// called as a `tools/call` on /mcp against the same call on POST /v1/tools/exchange-rate (the ratio is what MCP's
// JSON-RPC and the in-process dispatch cost), and how long `tools/list` takes for the whole catalog, page by page.
// Usage: npm run build && node bench/mcp.mjs        (env: BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS)

import { request } from 'undici';
import { startFrankfurter } from './lib/frankfurter.mjs';
import { keyWith, startAdminKasir } from './lib/funded-kasir.mjs';
import {
  benchScratch,
  header,
  interleaved,
  median,
  pinSelf,
  printTable,
  requireBuild,
} from './lib/harness.mjs';

requireBuild();
pinSelf();
const { dataDir, children, stop } = benchScratch();

const upstream = await startFrankfurter();

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const rpc = (method, params, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

try {
  const kasir = await startAdminKasir(dataDir, {
    ...upstream.env,
    // Providers configured (never called here) so that tools/list holds their models too.
    OPENAI_API_KEY: 'sk-bench',
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    GEMINI_API_KEY: 'gemini-bench',
    FAL_KEY: 'fal-bench:secret',
    UPSTREAM_MODEL_CHECK: 'false',
  });
  children.push(kasir);
  const key = await keyWith(kasir, 100_000_000_000);
  const args = { from: 'USD', to: 'IDR', amount: 100 };
  const httpHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const httpUrl = `${kasir.url}/v1/tools/exchange-rate`;
  const mcpUrl = `${kasir.url}/mcp`;
  const mcpHeaders = { ...MCP_HEADERS, authorization: `Bearer ${key}` };
  const mcpBody = rpc('tools/call', { name: 'tools__exchange-rate', arguments: args });

  // Warm the cache, and check both answers are paid calls.
  for (let i = 0; i < 2; i++) {
    const r = await request(httpUrl, { method: 'POST', headers: httpHeaders, body: JSON.stringify(args) });
    if (r.statusCode !== 200) throw new Error(`exchange-rate: ${r.statusCode} ${await r.body.text()}`);
    await r.body.dump();
  }
  const check = await request(mcpUrl, { method: 'POST', headers: mcpHeaders, body: mcpBody });
  const answer = await check.body.json();
  if (typeof answer.result?._meta?.['kasir/costMicroUsd'] !== 'number')
    throw new Error(`mcp tools/call: ${JSON.stringify(answer).slice(0, 300)}`);

  header('mcp');
  const rows = await interleaved([
    {
      ...kasir,
      name: 'HTTP POST /v1/tools/exchange-rate',
      url: httpUrl,
      method: 'POST',
      headers: httpHeaders,
      body: JSON.stringify(args),
    },
    {
      ...kasir,
      name: 'MCP tools/call exchange-rate',
      url: mcpUrl,
      method: 'POST',
      headers: mcpHeaders,
      body: mcpBody,
    },
  ]);
  printTable('A cached paid tool: MCP tools/call against plain HTTP (×req/s is the MCP/HTTP ratio)', rows);

  // tools/list for the whole catalog, page after page, one client at a time.
  const times = [];
  let tools = 0;
  let pages = 0;
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    let cursor;
    tools = 0;
    pages = 0;
    do {
      const r = await request(mcpUrl, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: rpc('tools/list', cursor ? { cursor } : {}),
      });
      const page = await r.body.json();
      tools += page.result.tools.length;
      pages++;
      cursor = page.result.nextCursor;
    } while (cursor);
    times.push(performance.now() - started);
  }
  console.log(
    `\ntools/list, the whole catalog (${tools} tools in ${pages} pages): median ${median(times).toFixed(1)} ms, best ${Math.min(...times).toFixed(1)} ms over ${times.length} runs`,
  );
} finally {
  stop();
  upstream.close();
}
