/**
 * The media offer: runs an image, video, speech, transcription or music model through its adapter, then re-hosts
 * every file it produced in kasir's media store (streamed from the provider's own hosts through the safe fetcher;
 * upstream URLs are never handed out). The answer's `output` is `{ url, contentType, sizeBytes }` of the first file,
 * with `files` listing all of them when the model made several; a text model's output is the provider's own body.
 */
import { Readable } from 'node:stream';
import type { ModelEntry } from '../catalog/types.js';
import type { Offer, OfferJob, RunContext } from '../checkout/offer.js';
import type { FetchConfig } from '../config/fetch.js';
import { FetchFailure } from '../fetch/errors.js';
import type { SafeFetcher, TrustedHosts } from '../fetch/safe-fetch.js';
import { CallAbort, type CallSignal } from '../http/call-signal.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';
import { acceptedMediaType } from '../media/keys.js';
import type { Media, MediaObject } from '../media/service.js';
import { MediaTooLargeError, MediaTypeMismatchError } from '../media/store.js';
import type {
  FileValue,
  MediaCall,
  MediaOutput,
  MediaProvider,
  ProducedFile,
} from '../providers/media/types.js';
import { audioSeconds, billedSeconds, lengthField } from './audio-length.js';
import { type FileInputs, fileFields } from './media-files.js';

export interface MediaRuntime {
  files: FileInputs;
  fetcher: SafeFetcher;
  media: Media;
  limits: FetchConfig;
}

/** What a re-hosted file is, as the answer states it. */
type Hosted = MediaObject & { key: string };

/** Stores one produced file in the media store: downloaded (trusted hosts only), decoded, or as it came. */
async function rehost(
  file: ProducedFile,
  kind: string,
  trusted: TrustedHosts,
  rt: MediaRuntime,
  signal: CallSignal,
): Promise<Hosted> {
  const maxBytes = rt.limits.resultMaxBytes;
  if (file.kind === 'bytes') return rt.media.save(file.contentType, Readable.from([file.bytes]), maxBytes);
  if (file.url.startsWith('data:')) {
    const res = await fetch(file.url);
    const type = acceptedMediaType(res.headers.get('content-type') ?? undefined) ?? file.contentType;
    if (!type) throw new UpstreamError('upstream', 'the provider answered a data URI without a media type');
    return rt.media.save(type, Readable.from([Buffer.from(await res.arrayBuffer())]), maxBytes);
  }
  const opened = await rt.fetcher.open(file.url, {
    maxBytes,
    accept: [`${kind}/*`, 'application/octet-stream', 'binary/octet-stream'],
    trusted,
    signal,
    // An authenticated download (Veo's file, Sora's content) may redirect to a storage host: followed, each hop
    // checked by the address rule, the key kept for the provider's own origin.
    ...(file.headers ? { headers: file.headers, redirectsLeaveTrusted: true } : {}),
  });
  const type = acceptedMediaType(opened.contentType) ?? acceptedMediaType(file.contentType);
  if (!type) {
    opened.body.destroy();
    throw new UpstreamError('upstream', `the provider's file is ${opened.contentType}, not ${kind}/*`);
  }
  return rt.media.save(type, opened.body, maxBytes);
}

/** A failure while re-hosting, as the upstream's failure (nothing is charged). */
function rehostFailure(err: unknown): unknown {
  if (err instanceof FetchFailure)
    return new UpstreamError(
      err.kind === 'timeout' ? 'timeout' : 'upstream',
      `result download: ${err.message}`,
    );
  if (err instanceof MediaTooLargeError)
    return new UpstreamError('upstream', `the result is larger than ${err.maxBytes} bytes`);
  // Markup or script where the provider said media: never stored, never served.
  if (err instanceof MediaTypeMismatchError)
    return new UpstreamError('upstream', `the result ${err.message}`);
  return err;
}

export function createMediaOffer(entry: ModelEntry, provider: MediaProvider, rt: MediaRuntime): Offer {
  // `model` names what was sold; local inputs are read for the price only: neither goes upstream.
  const local = new Set(['model', ...(entry.localInputs ?? [])]);
  const kind = entry.output;
  const fileLimit =
    entry.category === 'speech-to-text' ? rt.limits.transcriptionMaxBytes : rt.limits.maxBytes;

  /** The length field of a speech-to-text price (`duration`): measured from the file, never taken as declared. */
  const measuredField = lengthField(entry);
  /** Files fetched to be measured, kept for the run when the adapter sends bytes (so they are fetched once). */
  const fetched = new WeakMap<Record<string, unknown>, Record<string, FileValue | FileValue[]>>();

  /** The upstream part of a validated input: local inputs (the length, `model`) dropped. */
  const upstreamOf = (input: Record<string, unknown>) => {
    const upstreamInput: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) if (!local.has(key)) upstreamInput[key] = value;
    return upstreamInput;
  };

  /** The adapter's call for a validated input: local inputs dropped, file inputs resolved. */
  const callOf = async (input: Record<string, unknown>, ctx: RunContext): Promise<MediaCall> => {
    const upstreamInput = upstreamOf(input);
    const kept = provider.fileInputs === 'bytes' ? fetched.get(input) : undefined;
    const files =
      kept ??
      (await rt.files.resolve(entry, upstreamInput, provider.fileInputs, ctx.signal, fileLimit, input));
    return {
      endpoint: entry.upstream.endpoint,
      produces: kind,
      input: upstreamInput,
      files,
      signal: ctx.signal,
      requestId: ctx.requestId,
    };
  };

  /** The answer's output for what the adapter produced: re-hosted files, or the provider's own body. */
  const answer = async (output: MediaOutput, signal: CallSignal): Promise<Record<string, unknown>> => {
    if (output.kind === 'data') return output.body;
    const hosted: Hosted[] = [];
    try {
      for (const file of output.files) hosted.push(await rehost(file, kind, provider.trusted, rt, signal));
    } catch (err) {
      await Promise.all(hosted.map((h) => rt.media.delete(h.key).catch(() => {})));
      throw rehostFailure(err);
    }
    const view = (h: Hosted): MediaObject => ({
      url: h.url,
      contentType: h.contentType,
      sizeBytes: h.sizeBytes,
    });
    const [first] = hosted as [Hosted, ...Hosted[]];
    const body: Record<string, unknown> = { ...view(first) };
    if (hosted.length > 1) body.files = hosted.map(view);
    return body;
  };

  const { queue } = provider;
  const job: OfferJob | undefined = queue && {
    async submit(input, ctx) {
      return queue.submit(await callOf(input, ctx));
    },
    status: (handle, signal) => queue.status(handle, signal),
    async result(handle, signal) {
      return answer(await queue.result(handle, signal), signal);
    },
    ...(queue.cancel
      ? { cancel: (handle) => queue.cancel?.(handle, new CallAbort()) ?? Promise.resolve() }
      : {}),
  };

  return {
    entry,
    ...(job ? { job } : {}),
    ...(measuredField
      ? {
          async measure(input: Record<string, unknown>) {
            const [file] = fileFields(entry);
            if (!file) return false;
            const files = await rt.files.resolve(
              entry,
              upstreamOf(input),
              'bytes',
              new CallAbort(),
              fileLimit,
              input,
            );
            const value = files[file.field];
            if (!value || Array.isArray(value) || value.kind !== 'bytes') return false;
            const seconds = await audioSeconds(value.bytes, value.contentType);
            if (seconds === undefined)
              throw invalidInput([
                {
                  field: file.field,
                  message: `the length of this ${value.contentType} file cannot be read from its headers; send a common audio format (mp3, wav, m4a, ogg, flac, webm)`,
                },
              ]);
            input[measuredField] = billedSeconds(entry, measuredField, file.field, seconds);
            fetched.set(input, files);
            return true;
          },
        }
      : {}),
    preflight(input) {
      const refused = provider.refuse?.(entry.upstream.endpoint, input);
      if (refused) throw invalidInput([refused]);
      if (provider.missing)
        throw new ApiError(
          'not_configured',
          `model ${entry.id} needs ${provider.missing}, which is not set`,
          {
            model: entry.id,
          },
        );
    },
    async run(input, ctx) {
      const output = await provider.run(await callOf(input, ctx));
      return { kind: 'json', body: await answer(output, ctx.signal) };
    },
  };
}
