/** The chat input schema, built from a model's traits so every chat model speaks one wire format, and the checks JSON Schema cannot say well. */
import type { FieldError } from '../http/errors.js';
import { DEFAULT_MAX_TOKENS, estimateInputTokens } from './chat-tokens.js';
import { countTokens, type TokenCounter } from './tokenizer.js';
import type { ChatTraits, JsonSchema } from './types.js';

/** A JSON Schema if/then pair, built rather than written: a literal `then` key reads as a thenable. */
function when(condition: JsonSchema, consequence: JsonSchema): JsonSchema {
  return Object.fromEntries([
    ['if', condition],
    ['then', consequence],
  ]);
}

const contentPart: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', enum: ['text', 'image_url'] } },
  allOf: [
    when(
      { properties: { type: { const: 'text' } }, required: ['type'] },
      { required: ['text'], properties: { text: { type: 'string' } } },
    ),
    when(
      { properties: { type: { const: 'image_url' } }, required: ['type'] },
      {
        required: ['image_url'],
        properties: {
          image_url: {
            type: 'object',
            required: ['url'],
            properties: {
              url: { type: 'string', fileRef: true, description: 'A public URL or a data: URI' },
              detail: { type: 'string', enum: ['auto', 'low', 'high'] },
            },
          },
        },
      },
    ),
  ],
};

const toolCall: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    },
  },
};

const message: JsonSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] },
    content: { type: ['string', 'array', 'null'], items: contentPart },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
  },
  allOf: [
    when(
      { properties: { role: { enum: ['system', 'user'] } }, required: ['role'] },
      { required: ['content'], properties: { content: { type: ['string', 'array'] } } },
    ),
    when(
      { properties: { role: { const: 'tool' } }, required: ['role'] },
      { required: ['content', 'tool_call_id'] },
    ),
  ],
};

const functionTool: JsonSchema = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: 'boolean' },
      },
    },
  },
};

/**
 * The body of POST /v1/chat/completions for one model, as /v1/schema shows it. Additional properties are passed
 * through upstream. max_tokens has no schema default on purpose: injecting it would change the body sent upstream;
 * the quote and the adapters read `outputTokenCeiling()` instead (default 1024).
 */
export function chatInputSchema(traits: ChatTraits): JsonSchema {
  const maxTokens: JsonSchema = {
    type: 'integer',
    minimum: 1,
    description: `Output ceiling per completion (billed at this ceiling; default ${DEFAULT_MAX_TOKENS}).`,
  };
  if (traits.maxOutputTokens) maxTokens.maximum = traits.maxOutputTokens;
  const properties: Record<string, JsonSchema> = {
    model: { type: 'string', description: 'Model id or alias' },
    messages: {
      type: 'array',
      minItems: 1,
      items: message,
      description: 'The whole conversation (stateless)',
    },
    max_tokens: maxTokens,
    max_completion_tokens: { ...maxTokens, description: 'Alias of max_tokens' },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stop: { type: ['string', 'array'], items: { type: 'string' }, maxItems: 4 },
    n: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: 'Completions to generate (default 1; each billed)',
    },
    seed: { type: 'integer' },
    frequency_penalty: { type: 'number', minimum: -2, maximum: 2 },
    presence_penalty: { type: 'number', minimum: -2, maximum: 2 },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] } },
    },
    tools: { type: 'array', maxItems: 128, items: functionTool },
    tool_choice: {
      anyOf: [
        { type: 'string', enum: ['auto', 'none', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: {
            type: { type: 'string', const: 'function' },
            function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          },
        },
      ],
    },
    stream: { type: 'boolean' },
    stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
  };
  if (traits.reasoningEffort) {
    properties.reasoning_effort = { type: 'string', enum: traits.reasoningEffort };
  }
  return { type: 'object', required: ['messages'], properties };
}

/**
 * The schema chat bodies are validated with: the same for every chat model (so it is compiled once), without the
 * per-model output ceiling and reasoning_effort values, which `chatTraitErrors` checks with the same messages.
 */
export const CHAT_WIRE_SCHEMA: JsonSchema = (() => {
  const schema = chatInputSchema({ contextLength: null, maxOutputTokens: null, vision: true, tools: true });
  (schema.properties as Record<string, JsonSchema>).reasoning_effort = { type: 'string' };
  return schema;
})();

/** Refusals that depend on the model's traits: images without vision, tools without tool calling, and so on. */
export function chatTraitErrors(
  traits: ChatTraits,
  input: Record<string, unknown>,
  counter: TokenCounter = countTokens,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    const v = input[field];
    if (traits.maxOutputTokens && typeof v === 'number' && v > traits.maxOutputTokens) {
      errors.push({ field, message: `must be ≤ ${traits.maxOutputTokens}` });
    }
  }
  if (traits.reasoningEffort && input.reasoning_effort !== undefined) {
    if (!traits.reasoningEffort.includes(String(input.reasoning_effort))) {
      const values = traits.reasoningEffort.map((v) => JSON.stringify(v)).join(', ');
      errors.push({ field: 'reasoning_effort', message: `must be one of: ${values}` });
    }
  }
  if (!traits.vision && Array.isArray(input.messages)) {
    input.messages.forEach((m, i) => {
      const content = (m as Record<string, unknown> | null)?.content;
      if (!Array.isArray(content)) return;
      content.forEach((part, j) => {
        if ((part as Record<string, unknown> | null)?.type === 'image_url') {
          errors.push({
            field: `messages[${i}].content[${j}]`,
            message: 'this model does not accept images; send text only or choose a model with vision',
          });
        }
      });
    });
  }
  if (!traits.tools) {
    if (input.tools !== undefined) {
      errors.push({ field: 'tools', message: 'this model does not support tools (function calling)' });
    }
    if (input.tool_choice !== undefined && input.tool_choice !== 'none') {
      errors.push({ field: 'tool_choice', message: 'this model does not support tools (function calling)' });
    }
  }
  if (!traits.reasoningEffort && input.reasoning_effort !== undefined) {
    errors.push({ field: 'reasoning_effort', message: 'this model has no reasoning_effort control' });
  }
  for (const field of traits.refusedFields ?? []) {
    if (input[field] !== undefined && input[field] !== null) {
      errors.push({ field, message: `this model does not accept ${field}; leave it out` });
    }
  }
  if (errors.length === 0 && traits.contextLength) {
    const tokens = estimateInputTokens(input, counter);
    if (tokens > traits.contextLength) {
      errors.push({
        field: 'messages',
        message: `counted ${tokens} input tokens; more than this model's context of ${traits.contextLength} tokens`,
      });
    }
  }
  return errors;
}
