/** The capability route each model category is sold on (every model is also sold on /v1/infer). */
import type { Category } from './types.js';

export const CATEGORY_ROUTES: Record<Category, string> = {
  chat: '/v1/chat/completions',
  'text-to-image': '/v1/images/generations',
  'text-to-video': '/v1/video/generations',
  'image-to-video': '/v1/video/generations',
  'video-to-video': '/v1/video/generations',
  'text-to-speech': '/v1/audio/speech',
  'speech-to-text': '/v1/audio/transcriptions',
  music: '/v1/music/generations',
};

/** The catalog-wide route that runs any model by id. */
export const INFER_ROUTE = '/v1/infer';
