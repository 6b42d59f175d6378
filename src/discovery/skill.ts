/** GET /skill.md: the agent onboarding document (version 1), generated from the routes, catalog and rails. */
import { API_VERSION } from './openapi.js';

export interface SkillRail {
  id: string;
  title: string;
  /** How a caller pays on this rail, in one or two sentences. */
  howToPay: string;
  /** A complete example call (shell). */
  example: string;
}

export interface SkillRoute {
  method: string;
  path: string;
  summary: string;
  tag: string;
}

export interface SkillSources {
  baseUrl: string;
  routes: SkillRoute[];
  rails: SkillRail[];
  /** Model counts per category and example ids; empty until the catalog is loaded. */
  catalog: { categories: Record<string, number>; examples: string[] };
}

export function buildSkillMd(s: SkillSources): string {
  const b = s.baseUrl;
  const byTag = new Map<string, SkillRoute[]>();
  for (const r of s.routes) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
  const routeLines = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([tag, routes]) =>
        `### ${tag}\n\n${routes
          .sort((a, b) => a.path.localeCompare(b.path))
          .map((r) => `- \`${r.method} ${r.path}\` — ${r.summary}`)
          .join('\n')}`,
    )
    .join('\n\n');
  const categories = Object.entries(s.catalog.categories)
    .map(([c, n]) => `${c} (${n})`)
    .join(', ');
  const total = Object.values(s.catalog.categories).reduce((a, n) => a + n, 0);
  const rails = s.rails.length
    ? s.rails
        .map((r) => `### ${r.title} (\`${r.id}\`)\n\n${r.howToPay}\n\n\`\`\`sh\n${r.example}\n\`\`\``)
        .join('\n\n')
    : 'No payment rail is enabled on this server yet; only the free routes answer.';

  return `---
name: kasir
version: ${API_VERSION}
description: Pay-per-call inference and data gateway — generative models, data tools and free Indonesian lookups over HTTP, paid per call with no signup.
base_url: ${b}
---

# kasir — agent onboarding (version ${API_VERSION})

kasir runs generative models (image, video, speech, transcription, music, chat), utility and data tools,
and six free Indonesian lookups over HTTP. You pay per call: inputs are validated before any charge, a
call is charged only when it succeeds, and the amount charged equals the quote.

${total ? `The catalog holds ${total} models: ${categories}.` : 'The catalog is empty on this server.'}

## 1. Discover

1. \`GET ${b}/v1/consult?intent=<plain words>\` — ranked endpoints for what you want to do (never runs anything).
2. \`GET ${b}/v1/models\` — every model with its category, route and price summary; the tools, recipes and free
   lookups apart.
3. \`GET ${b}/v1/schema?model=<id>\` — the inputs a model, tool or lookup takes (\`fileRef\` inputs take a URL or
   base64; a lookup's go in the query string).
4. \`GET ${b}/v1/price?model=<id>&<inputs>\` — the exact price in micro-USD for that input (1 USD = 1,000,000).

\`\`\`sh
curl "${b}/v1/consult?intent=turn%20a%20photo%20into%20a%20short%20video"
curl "${b}/v1/price?model=${s.catalog.examples[0] ?? '<model-id>'}"
\`\`\`

## 2. Pay

A paid route called without payment answers **402** with the price and every payable rail. Dynamic routes
quote the ceiling of what the request could cost; send \`X-Max-Price: <micro-USD>\` to refuse anything
dearer, and \`Idempotency-Key: <unique>\` to make a retry safe (the same key and body never charge twice).
The free lookups (\`GET /v1/tools/<name>\`, under lookups below) ask for no payment and no key.

${rails}

### Over MCP

\`${b}/mcp\` is an MCP server (Streamable HTTP): \`tools/list\` is the catalog, each tool's description states
its price. A prepaid key goes in the HTTP \`Authorization: Bearer\` header. Unpaid, \`tools/call\` answers the
payment-required error (code -32042) listing every rail at the quote; call again with an MPP credential in
\`_meta["org.paymentauth/credential"]\` or an x402 PaymentPayload in \`_meta["x402/payment"]\`. \`${b}/x402/mcp\` is the same
server answering an unpaid call as x402's MCP transport does: a tool result with \`isError\` and the PaymentRequired in
the \`x402/error\` wrapper of its text (the rails and MPP challenges in \`_meta["org.paymentauth/payment-required"]\`).
\`_meta["kasir/max-price"]\`
and \`_meta["kasir/idempotency-key"]\` stand for the two headers, \`_meta["kasir/voucher"]\` for a channel's
\`Payment-Voucher\`. A long call (video, recipes) names its job in \`_meta["kasir/job"]\`; call again with it to resume.

## 3. Files

Pass a public URL for file inputs, inline base64 for small files (under about 1 MB), or upload raw bytes:

\`\`\`sh
curl -X POST ${b}/v1/media -H 'Content-Type: image/png' --data-binary @photo.png
# → { "url": "${b}/v1/media/<key>", "contentType": "image/png", "sizeBytes": 12345 }
\`\`\`

## 4. Routes

${routeLines}

## 5. Errors

Every error is \`{ "error": { "code", "message", "details"? } }\`: 400 bad input (details lists each field),
401 bad key, 402 payment required or refused, 404 unknown, 409 idempotency conflict, 413 too large,
415 wrong content type, 429 rate limited (Retry-After), 502/504 upstream failed (nothing charged),
503 not configured, or busy (\`overloaded\`: retry after Retry-After; nothing charged). Limits: about 120
requests per minute per IP.

Machine-readable: ${b}/openapi.json · rail discovery: ${b}/.well-known/x402 · MCP: ${b}/mcp (x402's convention: ${b}/x402/mcp)
`;
}
