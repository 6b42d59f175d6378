/**
 * GET /llms.txt (the llmstxt.org convention): a short markdown index for language-model agents — what kasir is, the
 * documents to read, and every entry of the catalog that can run here, each linked to its input schema.
 */

export interface LlmsEntry {
  id: string;
  name: string;
  /** The model's category, or `tool` / `recipe` / `lookup`. */
  category: string;
  /** Where it is offered (`POST /v1/chat/completions`, `POST /v1/tools/embed`, `GET /v1/tools/wilayah`, …). */
  route: string;
}

export interface LlmsSources {
  baseUrl: string;
  /** The catalog entries that can run on this server. */
  entries: LlmsEntry[];
  /** The ids of the payment rails that are on. */
  rails: string[];
}

export function buildLlmsTxt(s: LlmsSources): string {
  const b = s.baseUrl;
  const byCategory = new Map<string, LlmsEntry[]>();
  for (const e of s.entries) byCategory.set(e.category, [...(byCategory.get(e.category) ?? []), e]);
  const catalog = [...byCategory.entries()]
    .sort(([a], [z]) => a.localeCompare(z))
    .map(
      ([category, entries]) =>
        `## ${category}\n\n${entries
          .sort((x, y) => x.id.localeCompare(y.id))
          .map((e) => `- [${e.id}](${b}/v1/schema?model=${encodeURIComponent(e.id)}): ${e.name} — ${e.route}`)
          .join('\n')}`,
    )
    .join('\n\n');
  return `# kasir

> Pay-per-call inference and data gateway: generative models, data tools and free Indonesian lookups over HTTP.
> Paid routes answer 402 with the price and every payable rail (on here: ${s.rails.join(', ') || 'none'}); a prepaid
> key (\`Authorization: Bearer <key>\`) pays any paid route. Inputs are validated before any charge, a call is charged
> only on success, and the charge equals the quote (integer micro-USD).

## Docs

- [Agent onboarding](${b}/skill.md): discover, quote, pay and call, step by step
- [OpenAPI 3.1](${b}/openapi.json): every route and its schema
- [MCP server](${b}/mcp): every model, tool, recipe and lookup as an MCP tool (Streamable HTTP; pay with a key, MPP or x402)
- [MCP server, x402's convention](${b}/x402/mcp): the same, answering an unpaid call as x402's MCP transport does
- [x402 resources](${b}/.well-known/x402): the wallet-payable routes
- [Models](${b}/v1/models): every model with its price
- [Consult](${b}/v1/consult?intent=generate%20an%20image): the endpoints for a task, in plain words
- [Dashboard](${b}/dashboard): API keys, balance, usage and top-ups

${catalog || '## Catalog\n\nNothing in the catalog can run on this server yet.'}
`;
}
