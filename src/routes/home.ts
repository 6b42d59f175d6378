/**
 * GET / — a landing page for browsers (Accept: text/html) and a JSON index for agents, both pointing to the
 * documents to read next — and GET /favicon.ico, so a browser on any page finds the service's icon.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../http/env.js';

export interface HomeInputs {
  baseUrl: string;
  /** The ids of the payment rails that are on. */
  rails: () => string[];
}

/** The icon: a receipt-coloured square with a "k" (drawn here, rasterised once by sharp). */
const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#0f766e"/>
<path d="M10 6h3.5v11l6.5-6.5h4.6l-7.2 7.1 7.6 8.4h-4.7l-5.8-6.6-1 1V26H10z" fill="#fff"/>
</svg>`;

/** An ICO file holding one 32×32 PNG (the container browsers read since 2007; PNG payloads are allowed). */
async function buildFavicon(): Promise<Buffer> {
  // sharp loads with the first favicon asked for, not at start.
  const { default: sharp } = await import('sharp');
  const png = await sharp(Buffer.from(ICON_SVG)).png().toBuffer();
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(32, 6); // width
  header.writeUInt8(32, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14); // image size
  header.writeUInt32LE(22, 18); // image offset
  return Buffer.concat([header, png]);
}

/** The documents an agent reads next, as absolute links. */
export function homeIndex(baseUrl: string, rails: string[]) {
  return {
    name: 'kasir',
    description:
      'Pay-per-call inference and data gateway: generative models, data tools and free Indonesian lookups. Paid routes answer 402 with the price and every payable rail; a prepaid key (Authorization: Bearer) pays any of them.',
    rails,
    links: {
      skill: `${baseUrl}/skill.md`,
      llms: `${baseUrl}/llms.txt`,
      openapi: `${baseUrl}/openapi.json`,
      mcp: `${baseUrl}/mcp`,
      mcpX402: `${baseUrl}/x402/mcp`,
      x402: `${baseUrl}/.well-known/x402`,
      models: `${baseUrl}/v1/models`,
      consult: `${baseUrl}/v1/consult?intent=generate%20an%20image`,
      dashboard: `${baseUrl}/dashboard`,
    },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function landingPage(index: ReturnType<typeof homeIndex>): string {
  const link = (href: string, label: string, note: string) =>
    `<li><a href="${escapeHtml(href)}">${label}</a> — ${note}</li>`;
  const l = index.links;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kasir</title><link rel="icon" href="/favicon.ico">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1f2937}a{color:#0f766e}code{background:#f3f4f6;padding:0 .25rem}</style>
</head><body>
<h1>kasir</h1>
<p>${escapeHtml(index.description)}</p>
<ul>
${link(l.dashboard, 'Dashboard', 'API keys, balance, usage and top-ups')}
${link(l.skill, 'skill.md', 'how an agent discovers, pays and calls')}
${link(l.llms, 'llms.txt', 'index for language-model agents')}
${link(l.openapi, 'openapi.json', 'every route and its schema')}
${link(l.mcp, 'MCP server', 'every model, tool, recipe and lookup as an MCP tool (Streamable HTTP)')}
${link(l.mcpX402, 'MCP server, x402 convention', "the same, answering an unpaid call as x402's MCP transport does")}
${link(l.models, 'Models', 'the catalog with prices')}
</ul>
<p>Payment rails on here: ${index.rails.map((r) => `<code>${escapeHtml(r)}</code>`).join(', ') || 'none'}.</p>
</body></html>
`;
}

const prefersHtml = (accept: string | undefined) => /\btext\/html\b/i.test(accept ?? '');

export function mountHomeRoutes(app: OpenAPIHono<AppEnv>, inputs: HomeInputs): void {
  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['discovery'],
      summary: 'Index: a landing page for browsers (Accept: text/html), else JSON links to the documents',
      responses: {
        200: {
          description: 'The index',
          content: { 'application/json': { schema: z.unknown() }, 'text/html': { schema: z.string() } },
        },
      },
    }),
  );
  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'get',
      path: '/favicon.ico',
      tags: ['discovery'],
      summary: "The service's icon",
      responses: {
        200: { description: 'An ICO file', content: { 'image/x-icon': { schema: z.unknown() } } },
      },
    }),
  );
  app.get('/', (c) => {
    const index = homeIndex(inputs.baseUrl, inputs.rails());
    c.header('vary', 'accept');
    if (prefersHtml(c.req.header('accept'))) {
      return c.html(landingPage(index), 200, {
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'",
      });
    }
    return c.json(index);
  });
  let favicon: Promise<Buffer> | undefined;
  app.get('/favicon.ico', async (c) => {
    favicon ??= buildFavicon();
    return c.body(new Uint8Array(await favicon), 200, {
      'content-type': 'image/x-icon',
      'cache-control': 'public, max-age=86400',
    });
  });
}
