/**
 * The AssemblyAI adapter: pre-recorded transcription as a queue at ASSEMBLYAI_BASE_URL. Submitting uploads an
 * inline file first (`POST /v2/upload`) or passes a public URL on, then creates the transcript
 * (`POST /v2/transcript`); `GET /v2/transcript/{id}` reads it until it is completed or errored. AssemblyAI has no
 * way to stop a transcript in progress, so the queue has no cancel.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { type PollTiming, queuedProvider } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { assemblyAiHeaders, assemblyAiTrustedHosts } from './config.js';
import { audioInput, transcriptBody } from './request.js';
import { transcript, transcriptOutput, transcriptState, uploadUrl } from './response.js';

/** The answer to an upload is a one-line JSON object. */
const UPLOAD_ANSWER_LIMIT = 64 * 1024;

export function createAssemblyAiProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = assemblyAiHeaders(config);
  const read = async (handle: Record<string, unknown>, signal: Parameters<MediaQueue['status']>[1]) =>
    transcript(await client.getJson(`/v2/transcript/${String(handle.id)}`, headers, signal));
  const queue: MediaQueue = {
    async submit(call) {
      const audio = audioInput(call);
      let audioUrl: string;
      if (audio.kind === 'url') audioUrl = audio.url;
      else {
        const body = { contentType: 'application/octet-stream', bytes: audio.bytes };
        const parsed = await client.postForJson(
          '/v2/upload',
          body,
          headers,
          call.signal,
          UPLOAD_ANSWER_LIMIT,
        );
        audioUrl = uploadUrl(parsed);
      }
      const created = transcript(
        await client.postJson('/v2/transcript', transcriptBody(call, audioUrl), headers, call.signal),
      );
      return { id: created.id };
    },
    async status(handle, signal) {
      return transcriptState(await read(handle, signal));
    },
    async result(handle, signal) {
      return transcriptOutput(await read(handle, signal));
    },
  };
  return queuedProvider('assemblyai', config, queue, timing, {
    fileInputs: 'url',
    trusted: assemblyAiTrustedHosts(config),
  });
}
