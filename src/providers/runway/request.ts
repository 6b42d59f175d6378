/**
 * Runway's task requests, chosen by the inputs given: `POST /v1/video_to_video` when there is a `videoUri`
 * (`{ model, videoUri, promptText, references: [{ type: 'image', uri }], … }`), `POST /v1/image_to_video` when there
 * is a `promptImage`, `POST /v1/text_to_video` otherwise. Files go as the URL given or as a data URI.
 */
import { falFile } from '../fal/request.js';
import type { FileValue, MediaCall } from '../media/types.js';

export function taskRequest(call: MediaCall): { path: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { ...call.input, model: call.endpoint };
  for (const [field, value] of Object.entries(call.files)) {
    if (field === 'references') {
      const list = (Array.isArray(value) ? value : [value]) as FileValue[];
      body.references = list.map((file) => ({ type: 'image', uri: falFile(file) }));
    } else body[field] = Array.isArray(value) ? value.map(falFile) : falFile(value);
  }
  const path =
    body.videoUri !== undefined
      ? '/v1/video_to_video'
      : body.promptImage !== undefined
        ? '/v1/image_to_video'
        : '/v1/text_to_video';
  return { path, body };
}

/** Ratios gen4.5 takes from text alone (with a `promptImage` it takes the others too). */
const GEN45_TEXT_RATIOS = ['1280:720', '720:1280'];

/** Runway's rules the schema cannot state: gen4.5's text-to-video takes 1280:720 and 720:1280 only. */
export function runwayRefusal(
  endpoint: string,
  input: Record<string, unknown>,
): { field: string; message: string } | undefined {
  const ratio = input.ratio;
  if (endpoint === 'gen4.5' && input.promptImage === undefined && input.videoUri === undefined)
    if (typeof ratio === 'string' && !GEN45_TEXT_RATIOS.includes(ratio))
      return {
        field: 'ratio',
        message: `gen4.5 text-to-video takes ratio ${GEN45_TEXT_RATIOS.join(' or ')} (${ratio} needs a promptImage)`,
      };
  return undefined;
}
