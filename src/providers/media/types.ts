/**
 * The media provider port, next to the chat one: how kasir runs a media model (image, video, speech, transcription,
 * music) upstream. Two shapes: a `run` that answers within one exchange (OpenAI's images and audio), and the
 * submit / poll / result / cancel of a queue (fal's queue, Replicate's predictions, Runway's tasks), which
 * `runQueued` (queue.ts) turns into a run. Knows nothing about money or about where results are hosted.
 */
import type { ProviderName } from '../../config/providers.js';
import type { TrustedHosts } from '../../fetch/safe-fetch.js';
import type { CallSignal } from '../../http/call-signal.js';

/** One file input, as the caller gave it and as the adapter may send it. */
export type FileValue =
  /** A public http(s) URL that passed the address rule: the provider fetches it itself. */
  | { kind: 'url'; url: string }
  /** The file's bytes (inline base64, a data URI, kasir's own media, or a URL kasir fetched safely). */
  | { kind: 'bytes'; bytes: Buffer; contentType: string };

/** A file a provider produced. */
export type ProducedFile =
  /** On the provider's hosts: kasir downloads it through the safe fetcher (trusted hosts) and re-hosts it. */
  | {
      kind: 'url';
      url: string;
      contentType?: string;
      /** Headers the download needs (a provider's key); sent to the URL's own origin only, never after a redirect elsewhere. */
      headers?: Record<string, string>;
    }
  /** Bytes in the answer itself (base64 images, an audio body). */
  | { kind: 'bytes'; bytes: Buffer; contentType: string };

/** What a media model produced: files to re-host, or a text result in the provider's own shape. */
export type MediaOutput =
  | { kind: 'files'; files: ProducedFile[] }
  | { kind: 'data'; body: Record<string, unknown> };

export interface MediaCall {
  /** The upstream's id or path of the model (the catalog's `upstream.endpoint`). */
  endpoint: string;
  /** What the model produces (the catalog's `output`): files for image, video and audio, a body for text and json. */
  produces: 'image' | 'video' | 'audio' | 'text' | 'json';
  /** The validated input, without kasir's local inputs, file inputs resolved per `fileInputs`. */
  input: Record<string, unknown>;
  /** Each file input by field name (arrays: one per item, in order), resolved per `fileInputs`. */
  files: Record<string, FileValue | FileValue[]>;
  signal: CallSignal;
  requestId: string;
}

/** Where a queued call stands upstream. */
export type QueueState =
  | { state: 'queued' | 'running' }
  | { state: 'succeeded' }
  | { state: 'failed'; message: string; callerFault: boolean };

/** A queue upstream: the call's handle is opaque JSON, so a job can be persisted and polled by any instance. */
export interface MediaQueue {
  submit(call: MediaCall): Promise<Record<string, unknown>>;
  status(handle: Record<string, unknown>, signal: CallSignal): Promise<QueueState>;
  result(handle: Record<string, unknown>, signal: CallSignal): Promise<MediaOutput>;
  /** Asks the upstream to stop (best effort; a provider without cancel leaves it out). */
  cancel?(handle: Record<string, unknown>, signal: CallSignal): Promise<void>;
}

export interface MediaProvider {
  readonly name: ProviderName;
  /**
   * How file inputs reach this provider: `url` (a public URL is passed on for the provider to fetch, bytes as a
   * data URI) or `bytes` (kasir fetches every URL through the safe fetcher and sends the bytes).
   */
  readonly fileInputs: 'url' | 'bytes';
  /** The hosts its result files may come from. */
  readonly trusted: TrustedHosts;
  /** The setting it lacks (its key), or null when it can run. */
  readonly missing: string | null;
  /**
   * A rule of the provider's API the catalog schema cannot state (a pair of inputs it refuses together), checked
   * before any payment: the field at fault and why, or undefined when the input passes.
   */
  refuse?(endpoint: string, input: Record<string, unknown>): { field: string; message: string } | undefined;
  /** Runs one call to its end within the exchange. */
  run(call: MediaCall): Promise<MediaOutput>;
  /** Present when the provider works as a queue (the run then submits and polls it). */
  readonly queue?: MediaQueue;
}
