/** The body fal's queue takes for a model: the model's own input, files as URLs or data URIs. */
import type { FileValue, MediaCall } from '../media/types.js';

/** A file as fal reads it: a URL it fetches, or a base64 data URI. */
export function falFile(file: FileValue): string {
  return file.kind === 'url' ? file.url : `data:${file.contentType};base64,${file.bytes.toString('base64')}`;
}

export function falBody(call: MediaCall): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.input };
  for (const [field, value] of Object.entries(call.files)) {
    body[field] = Array.isArray(value) ? value.map(falFile) : falFile(value);
  }
  return body;
}

/**
 * The app part of an endpoint id, under which fal's queue files a request's status, result and cancel:
 * `fal-ai/flux/schnell` → `fal-ai/flux`.
 */
export function falAppId(endpoint: string): string {
  return endpoint.split('/').slice(0, 2).join('/');
}
