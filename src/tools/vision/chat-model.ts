/**
 * Which chat model a vision or identity tool calls: the model its setting names, or the first of
 * VISION_MODEL_PREFERENCE this server can reach; resolved once, to the targets the chat router tries in order.
 */
import type { ModelEntry } from '../../catalog/types.js';
import { VISION_MODEL_PREFERENCE } from '../../config/vision.js';
import type { ChatTarget } from '../../providers/chat-router.js';
import { CHAT_WIRE_FORMAT, chatModelAvailable, isChatProviderName } from '../../providers/registry.js';
import type { ToolDeps } from '../types.js';

export interface ChosenModel {
  entry: ModelEntry;
  /** The reachable upstreams of the model, primary first. */
  targets: ChatTarget[];
  /** How the model is made to answer in a schema: a JSON-schema response format, or one forced function call. */
  structured: 'response_format' | 'function_call';
}

function chatEntry(deps: ToolDeps, id: string): ModelEntry | undefined {
  const entry = deps.catalog.find(id);
  return entry?.kind === 'model' && entry.category === 'chat' ? entry : undefined;
}

/**
 * The model for a tool: `setting` (its name, e.g. VISION_MODEL, and value) when set, else the first available
 * preference. `needsVision` refuses models that cannot read images. Returns what is missing when none can serve.
 */
export function chooseChatModel(
  deps: ToolDeps,
  setting: { name: string; value: string | undefined },
  needsVision: boolean,
): ChosenModel | { missing: string } {
  const suits = (e: ModelEntry | undefined): e is ModelEntry =>
    e !== undefined && (!needsVision || e.chat?.vision === true);
  let entry: ModelEntry | undefined;
  if (setting.value) {
    const named = chatEntry(deps, setting.value);
    if (!suits(named)) {
      return {
        missing: `${setting.name} naming a catalog chat model${needsVision ? ' that reads images' : ''}`,
      };
    }
    if (!chatModelAvailable(named, deps.chat.providers)) {
      return { missing: `a key for the provider of ${setting.name} (${named.id})` };
    }
    entry = named;
  } else {
    entry = VISION_MODEL_PREFERENCE.map((id) => chatEntry(deps, id)).find(
      (e) => suits(e) && chatModelAvailable(e, deps.chat.providers),
    );
    if (!entry) {
      return {
        missing: `a chat provider key for one of ${VISION_MODEL_PREFERENCE.join(', ')} (or ${setting.name})`,
      };
    }
  }
  const reachable = [entry.upstream, ...(entry.fallbacks ?? [])].filter((t) =>
    deps.chat.providers.isConfigured(t.provider),
  );
  // One request body serves every target, so only targets that take the same structured-output form are kept.
  const structuredOf = (name: string) =>
    isChatProviderName(name) && CHAT_WIRE_FORMAT[name] === 'anthropic' ? 'function_call' : 'response_format';
  const structured = structuredOf(reachable[0]?.provider ?? entry.upstream.provider);
  const targets = reachable.flatMap((t) => {
    const provider = deps.chat.providers.get(t.provider);
    return provider && structuredOf(t.provider) === structured ? [{ provider, model: t.endpoint }] : [];
  });
  return { entry, targets, structured };
}

/** The model the image-reading tools (ocr-id, kyc-verify, product-listing) ask: VISION_MODEL, or the preference. */
export function chooseVisionModel(deps: ToolDeps): ChosenModel | { missing: string } {
  return chooseChatModel(deps, { name: 'VISION_MODEL', value: deps.config.vision.visionModel }, true);
}
