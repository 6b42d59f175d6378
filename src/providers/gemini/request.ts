/** Maps a common-format chat request to a Gemini API generateContent request. */
import {
  type CommonContentPart,
  type CommonMessage,
  type CommonTool,
  type CommonToolChoice,
  isHttpUrl,
  type JsonObject,
  maxTokensOf,
  messagesOf,
  parseDataUrl,
  parseToolArguments,
  reasoningEffortOf,
  stopSequencesOf,
  textOf,
  unsupportedInput,
} from '../chat-format.js';

/**
 * Gemini 3 refuses a replayed function call without the thought signature it came with. kasir hands the
 * signature out on each tool call as `extra_content.google.thought_signature` (as Google's own
 * OpenAI-compatible endpoint does) and reads it back from there; a call that has none (written by the
 * caller, or made by another model) gets the placeholder Google documents for exactly that case.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini 1.x and 2.0 have no thinking; 2.5 takes a token budget; 3 and later take a level. */
const MODELS_WITHOUT_THINKING = /^gemini-(1|2\.0)/;
const BUDGET_MODELS = /^gemini-2\.5/;
const MODELS_WITHOUT_SIGNATURES = /^gemini-[12][.-]/;

/**
 * `reasoning_effort` → `thinkingConfig`:
 * - Gemini 2.5: `thinkingBudget` low 1024, medium 8192, high 24576; none/minimal 0 (Pro cannot switch
 *   thinking off, so its floor of 128).
 * - Gemini 3 and later: `thinkingLevel` none/minimal → minimal on Flash and low on Pro; low → low;
 *   medium → medium on Flash and high on Pro; high → high.
 * - Gemini 1.x/2.0: dropped.
 */
export function thinkingConfigOf(model: string, effort: string | undefined): JsonObject | undefined {
  if (effort === undefined || MODELS_WITHOUT_THINKING.test(model)) return undefined;
  const pro = model.includes('-pro');
  if (BUDGET_MODELS.test(model)) {
    const budgets: Record<string, number> = {
      none: pro ? 128 : 0,
      minimal: pro ? 128 : 0,
      low: 1024,
      medium: 8192,
      high: 24576,
    };
    const budget = budgets[effort];
    return budget === undefined ? undefined : { thinkingBudget: budget };
  }
  const levels: Record<string, string> = {
    none: pro ? 'low' : 'minimal',
    minimal: pro ? 'low' : 'minimal',
    low: 'low',
    medium: pro ? 'high' : 'medium',
    high: 'high',
  };
  const level = levels[effort];
  return level === undefined ? undefined : { thinkingLevel: level };
}

type Part = JsonObject;
type ContentKind = 'user' | 'model' | 'function';
interface Content {
  kind: ContentKind;
  parts: Part[];
}

/** The model id as the URL path wants it (`models/` prefix removed). */
export function geminiModelId(body: JsonObject): string {
  return String(body.model).replace(/^models\//, '');
}

/**
 * Builds the generateContent body. System messages → `systemInstruction`; assistant → role `model`;
 * tool results → `functionResponse` parts (named after the earlier tool call with the same id), kept in a
 * user turn of their own; consecutive turns of one kind are merged. Tools are declared with
 * `parametersJsonSchema` and JSON output with `responseJsonSchema`, because the callers send standard
 * JSON Schema (`additionalProperties`, `$ref`, …) that the older OpenAPI-subset fields refuse.
 */
export function toGeminiRequest(body: JsonObject): JsonObject {
  const model = geminiModelId(body);
  const messages = messagesOf(body);
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
  }

  const system: string[] = [];
  const contents: Content[] = [];
  const push = (kind: ContentKind, parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.kind === kind) last.parts.push(...parts);
    else contents.push({ kind, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content, message.role));
        break;
      case 'user':
        push('user', userParts(message.content));
        break;
      case 'assistant':
        push('model', modelParts(message, !MODELS_WITHOUT_SIGNATURES.test(model)));
        break;
      case 'tool':
        push('function', [functionResponsePart(message, toolNames)]);
        break;
      default:
        throw unsupportedInput(`messages: unknown role "${message.role}"`);
    }
  }

  const request: JsonObject = {
    contents: contents.map((c) => ({ role: c.kind === 'model' ? 'model' : 'user', parts: c.parts })),
  };
  const systemText = system.filter((s) => s !== '').join('\n\n');
  if (systemText) request.systemInstruction = { parts: [{ text: systemText }] };
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    request.tools = [{ functionDeclarations: (body.tools as CommonTool[]).map(functionDeclarationOf) }];
    const toolConfig = toolConfigOf(body.tool_choice as CommonToolChoice | undefined);
    if (toolConfig) request.toolConfig = toolConfig;
  }
  const generationConfig = generationConfigOf(body, model);
  if (Object.keys(generationConfig).length) request.generationConfig = generationConfig;
  return request;
}

function generationConfigOf(body: JsonObject, model: string): JsonObject {
  const config: JsonObject = {};
  const maxTokens = maxTokensOf(body);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  const numeric: Array<[string, string]> = [
    ['temperature', 'temperature'],
    ['top_p', 'topP'],
    ['top_k', 'topK'],
    ['n', 'candidateCount'],
    ['seed', 'seed'],
    ['presence_penalty', 'presencePenalty'],
    ['frequency_penalty', 'frequencyPenalty'],
  ];
  for (const [ours, theirs] of numeric) if (typeof body[ours] === 'number') config[theirs] = body[ours];
  const stop = stopSequencesOf(body);
  if (stop?.length) config.stopSequences = stop;
  const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === 'json_object' || format?.type === 'json_schema')
    config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema' && format.json_schema?.schema)
    config.responseJsonSchema = format.json_schema.schema;
  const thinking = thinkingConfigOf(model, reasoningEffortOf(body));
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

function userParts(content: CommonMessage['content']): Part[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap(partOf);
}

function partOf(part: CommonContentPart): Part[] {
  switch (part.type) {
    case 'text': {
      const text = (part as { text: unknown }).text;
      if (typeof text !== 'string') throw unsupportedInput('text parts need a text string');
      return text === '' ? [] : [{ text }];
    }
    case 'image_url': {
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') throw unsupportedInput('image_url parts need image_url.url');
      return [mediaPart(url)];
    }
    case 'input_audio': {
      const audio = (part as { input_audio?: { data?: unknown; format?: unknown } }).input_audio;
      if (typeof audio?.data !== 'string') throw unsupportedInput('input_audio parts need input_audio.data');
      return [{ inlineData: { mimeType: `audio/${String(audio.format ?? 'wav')}`, data: audio.data } }];
    }
    case 'file': {
      const file = (part as { file?: { file_data?: unknown } }).file;
      const data = typeof file?.file_data === 'string' ? parseDataUrl(file.file_data) : undefined;
      if (!data) throw unsupportedInput('file parts need file_data as a base64 data URL');
      return [{ inlineData: { mimeType: data.mediaType, data: data.base64 } }];
    }
    default:
      throw unsupportedInput(`content parts of type "${part.type}" are not supported by this model`);
  }
}

/**
 * Data URLs are sent inline (`inlineData`). http(s) URLs are passed as `fileData.fileUri`, which Gemini
 * fetches itself; it needs a MIME type, guessed from the URL's extension (image/jpeg when unknown).
 */
function mediaPart(url: string): Part {
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
  if (isHttpUrl(url)) return { fileData: { mimeType: mimeTypeOfUrl(url), fileUri: url } };
  throw unsupportedInput('image URLs must be http(s) or base64 data URLs');
}

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

export function mimeTypeOfUrl(url: string): string {
  let pathname = '';
  try {
    pathname = new URL(url).pathname;
  } catch {
    // not a parseable URL: the default below
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return (extension && MIME_BY_EXTENSION[extension]) || 'image/jpeg';
}

function modelParts(message: CommonMessage, needsSignature: boolean): Part[] {
  const text = typeof message.content === 'string' ? message.content : textOf(message.content, 'assistant');
  const parts: Part[] = text ? [{ text }] : [];
  for (const call of message.tool_calls ?? []) {
    const signature = (call as { extra_content?: { google?: { thought_signature?: unknown } } }).extra_content
      ?.google?.thought_signature;
    const part: Part = { functionCall: { name: call.function.name, args: parseToolArguments(call) } };
    if (typeof signature === 'string') part.thoughtSignature = signature;
    else if (needsSignature) part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
    parts.push(part);
  }
  return parts;
}

/** A tool result as a `functionResponse`; Gemini wants an object, so other JSON values are wrapped in `result`. */
function functionResponsePart(message: CommonMessage, toolNames: Map<string, string>): Part {
  const name = (message.tool_call_id && toolNames.get(message.tool_call_id)) || message.name;
  if (!name)
    throw unsupportedInput(`tool message ${message.tool_call_id ?? ''} answers no earlier tool call`);
  const text = typeof message.content === 'string' ? message.content : textOf(message.content, 'tool');
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // plain text result
  }
  const response = value && typeof value === 'object' && !Array.isArray(value) ? value : { result: value };
  return { functionResponse: { name, response } };
}

function functionDeclarationOf(tool: CommonTool): JsonObject {
  if (tool.type !== 'function' || !tool.function?.name)
    throw unsupportedInput('tools must be function tools with a name');
  return {
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    ...(tool.function.parameters ? { parametersJsonSchema: tool.function.parameters } : {}),
  };
}

/** auto/none/required/named → AUTO/NONE/ANY/ANY with `allowedFunctionNames`. */
function toolConfigOf(choice: CommonToolChoice | undefined): JsonObject | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (typeof choice === 'object' && choice.function?.name) {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  throw unsupportedInput('tool_choice must be auto, none, required or a named function');
}
