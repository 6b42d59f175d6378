/** Maps a common-format chat request to an Anthropic Messages API request. */
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
import { ANTHROPIC_REASONING_FORMAT, reasoningDetailsOf } from '../reasoning-details.js';

/** Anthropic requires `max_tokens`; the interface's documented default is 1024. */
export const DEFAULT_MAX_TOKENS = 1024;

/**
 * `reasoning_effort` → extended-thinking budget in tokens (`none`/`minimal` leave thinking off). The
 * budget counts against `max_tokens` (thinking is billed as output), so it is capped at half of
 * `max_tokens` to leave room for the answer; when that is below Anthropic's minimum budget (1024),
 * thinking stays off. Thinking also stays off when a tool is forced (Anthropic refuses the pair), on
 * models without extended thinking (Claude 3 before 3.7, Claude 2, Instant), and in a tool loop whose
 * assistant turn came back without its signed thinking (see `unsignedToolTurn`).
 */
export const THINKING_BUDGET_TOKENS: Record<string, number> = { low: 1024, medium: 4096, high: 16384 };
const MIN_THINKING_BUDGET = 1024;
const MODELS_WITHOUT_THINKING = /^claude-(instant|2|3-(?!7))/;

type Block = JsonObject;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * Builds the Messages API body. System (and developer) messages become the top-level `system`; tool
 * results become `tool_result` blocks in a user turn; consecutive turns of one role are merged, as the
 * API expects alternating roles. Fields with no Anthropic equivalent (seed, penalties, logprobs,
 * response_format) are dropped; `n` above 1 is refused. With both temperature and top_p, top_p is dropped.
 */
export function toAnthropicRequest(body: JsonObject): JsonObject {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of messagesOf(body)) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content, message.role));
        break;
      case 'user':
        push('user', contentBlocks(message.content));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message));
        break;
      case 'tool':
        push('user', [toolResultBlock(message)]);
        break;
      default:
        throw unsupportedInput(`messages: unknown role "${message.role}"`);
    }
  }
  if (typeof body.n === 'number' && body.n > 1)
    throw unsupportedInput('n above 1 is not supported by this model');

  const maxTokens = maxTokensOf(body) ?? DEFAULT_MAX_TOKENS;
  const request: JsonObject = { model: body.model, messages, max_tokens: maxTokens };
  const systemText = system.filter((s) => s !== '').join('\n\n');
  if (systemText) request.system = systemText;
  const stop = stopSequencesOf(body);
  if (stop?.length) request.stop_sequences = stop;
  if (typeof body.user === 'string') request.metadata = { user_id: body.user };

  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (hasTools) request.tools = (body.tools as CommonTool[]).map(toolOf);
  const toolChoice = hasTools ? toolChoiceOf(body) : undefined;
  if (toolChoice) request.tool_choice = toolChoice;

  const forcedTool = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  const budget = unsignedToolTurn(messages)
    ? undefined
    : thinkingBudget(String(body.model), reasoningEffortOf(body), maxTokens, forcedTool);
  if (budget) {
    // Anthropic refuses a custom temperature, top_k or top_p below 0.95 together with thinking.
    request.thinking = { type: 'enabled', budget_tokens: budget };
  } else {
    for (const key of ['temperature', 'top_p', 'top_k'] as const) {
      if (typeof body[key] === 'number') request[key] = body[key];
    }
    // Current Claude models refuse temperature and top_p together (400); OpenAI clients often send both.
    // temperature wins (Anthropic's advice is to tune one of the two, and temperature is the common one).
    if (request.temperature !== undefined) delete request.top_p;
  }
  return request;
}

export function thinkingBudget(
  model: string,
  effort: string | undefined,
  maxTokens: number,
  forcedTool: boolean,
): number | undefined {
  const ladder = effort === undefined ? undefined : THINKING_BUDGET_TOKENS[effort];
  if (!ladder || forcedTool || MODELS_WITHOUT_THINKING.test(model)) return undefined;
  const budget = Math.min(ladder, Math.floor(maxTokens / 2));
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/**
 * True when the conversation ends in a tool loop whose assistant turn carries no signed thinking (the caller did
 * not hand `reasoning_details` back). Anthropic refuses thinking there ("Expected `thinking` … but found
 * `tool_use`"), so such a request runs with thinking off rather than fail.
 */
function unsignedToolTurn(messages: AnthropicMessage[]): boolean {
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  if (last?.role !== 'user' || assistant?.role !== 'assistant') return false;
  if (!last.content.some((block) => block.type === 'tool_result')) return false;
  const first = assistant.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

/** User content (and tool-result content): text, images, PDF documents. */
function contentBlocks(content: CommonMessage['content']): Block[] {
  if (content == null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.flatMap((part) => partBlock(part));
}

function partBlock(part: CommonContentPart): Block[] {
  const cacheControl =
    'cache_control' in part && part.cache_control ? { cache_control: part.cache_control } : {};
  switch (part.type) {
    case 'text': {
      const text = (part as { text: unknown }).text;
      if (typeof text !== 'string') throw unsupportedInput('text parts need a text string');
      return text === '' ? [] : [{ type: 'text', text, ...cacheControl }];
    }
    case 'image_url': {
      const url = (part as { image_url?: { url?: unknown } }).image_url?.url;
      if (typeof url !== 'string') throw unsupportedInput('image_url parts need image_url.url');
      return [{ type: 'image', source: imageSource(url), ...cacheControl }];
    }
    case 'file': {
      const file = (part as { file?: { file_data?: unknown } }).file;
      const data = typeof file?.file_data === 'string' ? parseDataUrl(file.file_data) : undefined;
      if (!data) throw unsupportedInput('file parts need file_data as a base64 data URL');
      return [
        {
          type: 'document',
          source: { type: 'base64', media_type: data.mediaType, data: data.base64 },
          ...cacheControl,
        },
      ];
    }
    default:
      throw unsupportedInput(`content parts of type "${part.type}" are not supported by this model`);
  }
}

/** Data URLs are sent inline (base64); http(s) URLs are fetched by Anthropic itself. */
function imageSource(url: string): JsonObject {
  const data = parseDataUrl(url);
  if (data) return { type: 'base64', media_type: data.mediaType, data: data.base64 };
  if (isHttpUrl(url)) return { type: 'url', url };
  throw unsupportedInput('image URLs must be http(s) or base64 data URLs');
}

/**
 * An assistant turn: its signed reasoning first (thinking / redacted_thinking blocks from `reasoning_details`,
 * which Anthropic requires before a tool_use when thinking is on), then text, then tool calls. Reasoning
 * without a signature cannot be verified by Anthropic and is left out.
 */
function assistantBlocks(message: CommonMessage): Block[] {
  const blocks: Block[] = [];
  for (const piece of reasoningDetailsOf(message as unknown as JsonObject, ANTHROPIC_REASONING_FORMAT)) {
    if (piece.type === 'reasoning.encrypted') blocks.push({ type: 'redacted_thinking', data: piece.data });
    else if (piece.signature)
      blocks.push({ type: 'thinking', thinking: piece.text ?? '', signature: piece.signature });
  }
  const text = typeof message.content === 'string' ? message.content : assistantText(message.content);
  if (text) blocks.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call) });
  }
  return blocks;
}

/** Text of an assistant content array; a refusal part is kept as text, since Anthropic has no refusal block. */
function assistantText(content: CommonContentPart[] | null | undefined): string {
  if (!content) return '';
  return content
    .map((part) => {
      const value = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
      if (typeof value !== 'string')
        throw unsupportedInput(`assistant content parts of type "${part.type}" are not supported`);
      return value;
    })
    .join('\n');
}

function toolResultBlock(message: CommonMessage): Block {
  if (typeof message.tool_call_id !== 'string') throw unsupportedInput('tool messages need tool_call_id');
  const content =
    typeof message.content === 'string' ? message.content : contentBlocks(message.content ?? null);
  return { type: 'tool_result', tool_use_id: message.tool_call_id, content };
}

function toolOf(tool: CommonTool): JsonObject {
  if (tool.type !== 'function' || !tool.function?.name)
    throw unsupportedInput('tools must be function tools with a name');
  return {
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  };
}

/** auto/none/required/named → auto/none/any/tool; `parallel_tool_calls: false` → `disable_parallel_tool_use`. */
function toolChoiceOf(body: JsonObject): JsonObject | undefined {
  const choice = body.tool_choice as CommonToolChoice | undefined;
  const noParallel = body.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined)
    return body.parallel_tool_calls === false ? { type: 'auto', ...noParallel } : undefined;
  if (choice === 'auto') return { type: 'auto', ...noParallel };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (typeof choice === 'object' && choice.function?.name) {
    return { type: 'tool', name: choice.function.name, ...noParallel };
  }
  throw unsupportedInput('tool_choice must be auto, none, required or a named function');
}
