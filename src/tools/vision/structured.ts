/**
 * One chat call answered in a JSON schema: through the provider's JSON-schema response format (OpenAI-compatible
 * `response_format: {type: 'json_schema'}`, which the Gemini adapter maps to `responseJsonSchema`) or, where the
 * wire format has none (Anthropic), one forced function call whose parameters are the schema. The answer is
 * validated against the schema; a malformed one is asked again once, then the call fails (502, nothing charged).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../catalog/types.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ChatRuntime } from '../../providers/chat-runtime.js';
import type { ToolCall } from '../types.js';
import type { ChosenModel } from './chat-model.js';

/** An OpenAI chat content part: text, or an image as a (data) URL. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

export interface StructuredAsk {
  /** The schema's name (letters, digits, _ and -), also the forced function's name. */
  name: string;
  /** Strict-mode schema: every property required, nullable ones typed `[T, 'null']`, no extra properties. */
  schema: JsonSchema;
  system: string;
  user: string | ContentPart[];
  /** The output ceiling sent upstream. */
  maxTokens: number;
}

/** The user turn of a question about one image (a data URI). */
export function aboutImage(text: string, dataUri: string, detail: 'auto' | 'high'): ContentPart[] {
  return [
    { type: 'text', text },
    { type: 'image_url', image_url: { url: dataUri, detail } },
  ];
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new WeakMap<JsonSchema, ValidateFunction>();

function validatorOf(schema: JsonSchema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    validators.set(schema, v);
  }
  return v;
}

function requestBody(model: ChosenModel, ask: StructuredAsk): Record<string, unknown> {
  const body: Record<string, unknown> = {
    messages: [
      { role: 'system', content: ask.system },
      { role: 'user', content: ask.user },
    ],
    [model.entry.chat?.outputLimitField ?? 'max_tokens']: ask.maxTokens,
  };
  if (model.structured === 'function_call') {
    body.tools = [
      {
        type: 'function',
        function: { name: ask.name, description: 'Record the answer.', parameters: ask.schema },
      },
    ];
    body.tool_choice = { type: 'function', function: { name: ask.name } };
  } else {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: ask.name, strict: true, schema: ask.schema },
    };
  }
  return body;
}

interface AssistantMessage {
  content?: unknown;
  tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }>;
}

/** The JSON text of the answer: the forced call's arguments, or the message text. */
function answerText(completion: { choices: unknown[] }, model: ChosenModel): string | undefined {
  const message = (completion.choices[0] as { message?: AssistantMessage } | undefined)?.message;
  if (model.structured === 'function_call') {
    const args = message?.tool_calls?.[0]?.function?.arguments;
    return typeof args === 'string' ? args : undefined;
  }
  return typeof message?.content === 'string' ? message.content : undefined;
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Asks the model and returns its answer as a value of the schema, and the model id the upstream reported.
 * @example const { value } = await askStructured<Parsed>(deps.chat, model, { name: 'address', … }, call);
 */
export async function askStructured<T>(
  chat: ChatRuntime,
  model: ChosenModel,
  ask: StructuredAsk,
  call: ToolCall,
): Promise<{ value: T; model: string }> {
  const validate = validatorOf(ask.schema);
  const body = requestBody(model, ask);
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const completion = await chat.router.complete(model.targets, body, call);
    const value = parsed(answerText(completion, model));
    if (value !== undefined && validate(value)) {
      return {
        value: value as T,
        model: typeof completion.model === 'string' ? completion.model : model.entry.id,
      };
    }
    problem =
      value === undefined
        ? 'no JSON answer'
        : `an answer outside the schema (${ajv.errorsText(validate.errors, { dataVar: 'answer' })})`;
  }
  throw new UpstreamError('upstream', `${model.entry.id} gave ${problem}, twice`, { beforeFirstByte: true });
}
