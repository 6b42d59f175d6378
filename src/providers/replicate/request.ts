/** The body of a Replicate prediction on an official model: `{ input }`, files as URLs or data URIs. */
import { falFile } from '../fal/request.js';
import type { MediaCall } from '../media/types.js';

export function predictionBody(call: MediaCall): { input: Record<string, unknown> } {
  const input: Record<string, unknown> = { ...call.input };
  // Replicate reads a file input as fal does: a URL it fetches, or a data URI.
  for (const [field, value] of Object.entries(call.files))
    input[field] = Array.isArray(value) ? value.map(falFile) : falFile(value);
  return { input };
}

/** `POST /v1/models/{owner}/{name}/predictions` runs an official model at its latest version. */
export function predictionPath(endpoint: string): string {
  return `/v1/models/${endpoint}/predictions`;
}
