/**
 * Settings of the face tools (tools/face-detect, tools/face-embed, tools/face-compare): how large an image the local
 * face model reads, how many faces it looks at, and the similarity above which face-compare reports a match.
 */
import { z } from 'zod';
import type { SettingsArea } from './setting.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const faceEnvShape = {
  FACE_IMAGE_SIDE: int(128, 2048).default(640),
  FACE_MAX_FACES: int(1, 50).default(10),
  FACE_MATCH_THRESHOLD: z.coerce.number().min(-1).max(1).default(0.62),
};

export interface FaceConfig {
  /** The longest side of the image the face model reads (a larger one is scaled down first, aspect kept). */
  imageSide: number;
  /** The most faces analysed in one image (largest confidence first). */
  maxFaces: number;
  /** Cosine similarity at or above which face-compare sets `match` (calibration in README). */
  matchThreshold: number;
}

export function parseFace(e: Record<string, unknown>): FaceConfig {
  return {
    imageSide: Number(e.FACE_IMAGE_SIDE),
    maxFaces: Number(e.FACE_MAX_FACES),
    matchThreshold: Number(e.FACE_MATCH_THRESHOLD),
  };
}

export const faceSettings: SettingsArea = {
  name: 'face',
  shape: faceEnvShape,
  rows: [
    {
      vars: ['FACE_IMAGE_SIDE'],
      default: '`640`',
      meaning: 'Longest side of the image the face model reads (scaled down, aspect kept).',
    },
    { vars: ['FACE_MAX_FACES'], default: '`10`', meaning: 'The most faces analysed in one image.' },
    {
      vars: ['FACE_MATCH_THRESHOLD'],
      default: '`0.62`',
      meaning: 'Cosine similarity at or above which face-compare sets `match`.',
    },
  ],
};
