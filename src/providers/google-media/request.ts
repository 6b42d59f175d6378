/**
 * The Gemini API's media requests, by model family:
 * - Imagen: `POST /v1beta/models/{model}:predict` `{ instances: [{ prompt }], parameters: { sampleCount, aspectRatio,
 *   imageSize, personGeneration } }`;
 * - Veo: `POST /v1beta/models/{model}:predictLongRunning` `{ instances: [{ prompt, image, lastFrame,
 *   referenceImages: [{ image, referenceType: 'ASSET' }] }], parameters: { aspectRatio, resolution, durationSeconds,
 *   negativePrompt, seed, personGeneration } }`, images as `{ bytesBase64Encoded, mimeType }`;
 * - Gemini image models: `POST /v1beta/models/{model}:generateContent` with the prompt and reference images as parts
 *   and `generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio, imageSize } }`.
 */

import { UpstreamError } from '../../http/upstream-error.js';
import type { FileValue, MediaCall } from '../media/types.js';

export type GoogleFamily = 'imagen' | 'veo' | 'gemini';

export function familyOf(endpoint: string): GoogleFamily {
  if (endpoint.startsWith('imagen')) return 'imagen';
  if (endpoint.startsWith('veo')) return 'veo';
  return 'gemini';
}

function bytesOf(file: FileValue): { data: string; mimeType: string } {
  // fileInputs is 'bytes': kasir fetched every URL itself; a URL here is a wiring fault, not the caller's.
  if (file.kind !== 'bytes')
    throw new UpstreamError('upstream', 'an image input reached the adapter unfetched');
  return { data: file.bytes.toString('base64'), mimeType: file.contentType };
}

const vertexImage = (file: FileValue) => {
  const { data, mimeType } = bytesOf(file);
  return { bytesBase64Encoded: data, mimeType };
};

const list = (value: FileValue | FileValue[] | undefined): FileValue[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export function googleRequest(call: MediaCall): { path: string; body: Record<string, unknown> } {
  const model = `/v1beta/models/${encodeURIComponent(call.endpoint)}`;
  const { prompt, image, lastFrame, referenceImages, images, aspectRatio, imageSize, ...rest } = call.input;
  switch (familyOf(call.endpoint)) {
    case 'imagen':
      return {
        path: `${model}:predict`,
        body: { instances: [{ prompt }], parameters: { ...rest, aspectRatio, imageSize } },
      };
    case 'veo': {
      const instance: Record<string, unknown> = { prompt };
      const [first] = list(call.files.image);
      const [last] = list(call.files.lastFrame);
      if (first) instance.image = vertexImage(first);
      if (last) instance.lastFrame = vertexImage(last);
      const refs = list(call.files.referenceImages);
      if (refs.length > 0)
        instance.referenceImages = refs.map((f) => ({ image: vertexImage(f), referenceType: 'ASSET' }));
      return {
        path: `${model}:predictLongRunning`,
        body: { instances: [instance], parameters: { ...rest, aspectRatio } },
      };
    }
    case 'gemini': {
      const parts: unknown[] = [{ text: prompt }];
      for (const file of list(call.files.images)) parts.push({ inlineData: bytesOf(file) });
      const imageConfig: Record<string, unknown> = {};
      if (aspectRatio !== undefined) imageConfig.aspectRatio = aspectRatio;
      if (imageSize !== undefined) imageConfig.imageSize = imageSize;
      return {
        path: `${model}:generateContent`,
        body: {
          contents: [{ role: 'user', parts }],
          generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig },
        },
      };
    }
  }
}

/**
 * The Gemini API's rules the schema cannot state: Veo's `seed` is a Vertex AI parameter, which the Gemini API
 * (the one kasir calls, with an API key) refuses.
 */
export function googleRefusal(
  endpoint: string,
  input: Record<string, unknown>,
): { field: string; message: string } | undefined {
  if (familyOf(endpoint) === 'veo' && input.seed !== undefined)
    return { field: 'seed', message: 'Veo takes a seed on Vertex AI only; the Gemini API refuses it' };
  return undefined;
}
