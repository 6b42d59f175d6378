/**
 * Fake self-hosted OpenAI-compatible servers, each listing its models at GET /v1/models in that server's own format
 * and refusing a chat call for a model it does not serve the way it does:
 *   - Ollama (OpenAI compatibility): `owned_by: "library"`, tagged ids (`llama3.2:latest`), 404 "model … not found,
 *     try pulling it first" (the untagged name is served too, as Ollama resolves the default tag);
 *   - vLLM: `owned_by: "vllm"`, `root`, `parent`, `max_model_len`, `permission`; 404 `NotFoundError`;
 *   - llama.cpp server: `owned_by: "llamacpp"`, `meta.n_ctx_train`, and the Ollama-style `models` list beside `data`;
 *     it serves its one model whatever name is asked;
 *   - LM Studio: `owned_by: "organization_owner"`, nothing else.
 * Chat answers are the OpenAI fake's (openai-upstream.ts); `url` ends in /v1, as the base URL settings do.
 */
import type { FakeUpstream, FakeUpstreamOptions } from './chat-upstream.js';
import { startFakeOpenAI } from './openai-upstream.js';

export type SelfHostedFlavour = 'ollama' | 'vllm' | 'llamacpp' | 'lmstudio';

const CREATED = 1_731_000_000;

function ollamaList(models: string[]) {
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'library' })),
  };
}

function vllmList(models: string[], maxModelLen: number) {
  return {
    object: 'list',
    data: models.map((id) => ({
      id,
      object: 'model',
      created: CREATED,
      owned_by: 'vllm',
      root: id,
      parent: null,
      max_model_len: maxModelLen,
      permission: [
        {
          id: 'modelperm-0c3a5e1f2b4d4c6e8f0a1b2c3d4e5f60',
          object: 'model_permission',
          created: CREATED,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: '*',
          group: null,
          is_blocking: false,
        },
      ],
    })),
  };
}

function llamaCppList(models: string[], nCtxTrain: number) {
  return {
    models: models.map((id) => ({
      name: id,
      model: id,
      modified_at: '',
      size: '',
      digest: '',
      type: 'model',
      description: '',
      tags: [''],
      capabilities: ['completion'],
      parameters: '',
      details: {
        parent_model: '',
        format: 'gguf',
        family: '',
        families: [''],
        parameter_size: '',
        quantization_level: '',
      },
    })),
    object: 'list',
    data: models.map((id) => ({
      id,
      object: 'model',
      created: CREATED,
      owned_by: 'llamacpp',
      meta: {
        vocab_type: 2,
        n_vocab: 262_144,
        n_ctx_train: nCtxTrain,
        n_embd: 1152,
        n_params: 999_885_952,
        size: 806_058_240,
      },
    })),
  };
}

function lmStudioList(models: string[]) {
  return {
    data: models.map((id) => ({ id, object: 'model', owned_by: 'organization_owner' })),
    object: 'list',
  };
}

export interface SelfHostedOptions extends FakeUpstreamOptions {
  models: string[];
  /** vLLM's max_model_len / llama.cpp's n_ctx_train (default 8192). */
  contextLength?: number;
}

export function startFakeSelfHosted(
  flavour: SelfHostedFlavour,
  options: SelfHostedOptions,
): Promise<FakeUpstream> {
  const { models, contextLength = 8192, ...rest } = options;
  if (flavour === 'ollama') {
    return startFakeOpenAI({
      ...rest,
      modelList: ollamaList(models),
      served: models.flatMap((m) => [m, m.replace(/:latest$/, '')]),
      unknownModel: (model) => ({
        status: 404,
        body: {
          error: {
            message: `model "${model}" not found, try pulling it first`,
            type: 'api_error',
            param: null,
            code: null,
          },
        },
      }),
    });
  }
  if (flavour === 'vllm') {
    return startFakeOpenAI({
      ...rest,
      modelList: vllmList(models, contextLength),
      served: models,
      unknownModel: (model) => ({
        status: 404,
        body: {
          object: 'error',
          message: `The model \`${model}\` does not exist.`,
          type: 'NotFoundError',
          param: null,
          code: 404,
        },
      }),
    });
  }
  if (flavour === 'llamacpp')
    return startFakeOpenAI({ ...rest, modelList: llamaCppList(models, contextLength) });
  return startFakeOpenAI({ ...rest, modelList: lmStudioList(models) });
}
