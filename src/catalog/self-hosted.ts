/**
 * Catalog entries for the models an operator's own OpenAI-compatible server lists (Ollama at OLLAMA_BASE_URL, any
 * other at SELF_HOSTED_BASE_URL): chat models sold at the operator's per-token price, with ids `<server>/<model>`
 * and the aliases callers use (`llama3.2`, `ollama/llama3.2`, `llama3.2@ollama`).
 */
import type { TokenPrice } from '../config/models.js';
import type { SelfHostedServer } from '../config/providers.js';
import type { ListedModel } from '../providers/model-lists.js';
import { CATEGORY_ROUTES } from './category-routes.js';
import { chatInputSchema } from './chat-schema.js';
import type { ChatTraits, ModelEntry } from './types.js';

const LABEL: Record<SelfHostedServer, string> = { ollama: 'Ollama', 'self-hosted': 'self-hosted' };

/** The price of one listed model: an override by its server id, kasir id or untagged name, else the default. */
export function priceOf(
  server: SelfHostedServer,
  modelId: string,
  prices: { selfHostedPrice: TokenPrice; selfHostedPrices: Record<string, TokenPrice> },
): TokenPrice {
  const untagged = modelId.replace(/:latest$/, '');
  const o = prices.selfHostedPrices;
  return (
    o[modelId] ??
    o[`${server}/${modelId}`] ??
    o[untagged] ??
    o[`${server}/${untagged}`] ??
    prices.selfHostedPrice
  );
}

/** The names a listed model answers to besides its id; Ollama's `:latest` tag may be left out. */
function aliasesOf(server: SelfHostedServer, modelId: string): string[] {
  const names = [modelId, `${modelId}@${server}`];
  if (modelId.endsWith(':latest')) {
    const untagged = modelId.slice(0, -':latest'.length);
    names.push(`${server}/${untagged}`, untagged, `${untagged}@${server}`);
  }
  return names;
}

/** The catalog entry of one model a self-hosted server lists. */
export function selfHostedEntry(
  server: SelfHostedServer,
  listed: ListedModel,
  price: TokenPrice,
): ModelEntry {
  // What the server does not say is left to it: a request it cannot serve fails upstream, and is not charged.
  const chat: ChatTraits = {
    contextLength: listed.contextLength ?? null,
    maxOutputTokens: null,
    vision: true,
    tools: true,
  };
  return {
    kind: 'model',
    id: `${server}/${listed.id}`,
    aliases: aliasesOf(server, listed.id),
    name: `${listed.id} (${LABEL[server]})`,
    description: `${listed.id}, served by the operator's own ${LABEL[server]} server, sold by the token at the operator's price.`,
    synonyms: ['self-hosted', 'local model', 'open model', 'llm', 'chat'],
    category: 'chat',
    route: CATEGORY_ROUTES.chat,
    upstream: { provider: server, endpoint: listed.id },
    output: 'text',
    chat,
    input: chatInputSchema(chat),
    price: { kind: 'chat_tokens', inputPer1M: price.inputPer1M, outputPer1M: price.outputPer1M },
    priceSource: 'the operator (SELF_HOSTED_PRICE_PER_MTOK, SELF_HOSTED_PRICES)',
  };
}
