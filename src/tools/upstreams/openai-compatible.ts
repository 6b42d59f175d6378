/**
 * The configured chat providers' OpenAI-compatible endpoints for the text tools: POST /embeddings and
 * POST /moderations at the provider's base URL with its key (the same settings chat uses).
 */
import { PROVIDER_ENV, type ProviderName } from '../../config/providers.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';

/** The provider's client, or the setting it lacks. */
export function openAiCompatible(deps: ToolDeps, name: string): JsonUpstream | { missing: string } {
  const env = PROVIDER_ENV[name as ProviderName];
  if (!env) return { missing: `a known provider name (not "${name}")` };
  const provider = deps.config.providers[name as ProviderName];
  // Self-hosted servers (Ollama, SELF_HOSTED_BASE_URL) run keyless; every other provider needs its key.
  if (!provider.baseUrl) return { missing: env.baseUrl };
  if (!provider.apiKey && name !== 'ollama' && name !== 'self-hosted') return { missing: env.key };
  return new JsonUpstream(name, provider.baseUrl, deps.http, {
    ...(provider.apiKey
      ? { headers: { authorization: `Bearer ${provider.apiKey}` }, secret: provider.apiKey }
      : {}),
    gate: `${name}-text-tools`,
  });
}
