/**
 * tools/face-embed: one descriptor per face of a photo (the local model's faceres vector: 1024 numbers, unit length,
 * so a dot product is the cosine similarity), with box, score, age and gender. A photo without a face is an answer
 * with an empty list (the model ran; charged like face-detect's). Nothing is stored.
 */
import { createFaceReader } from './face/faces.js';
import { FACE_EMBEDDING_DIMENSIONS, FACE_MODEL_ID } from './face/model.js';
import type { ToolFactory } from './types.js';

export const faceEmbed: ToolFactory = (deps) => {
  const faces = createFaceReader(deps);
  return {
    preflight: () => faces.admit(),
    async run(input, call) {
      const read = await faces.read(input, call);
      return {
        count: read.faces.length,
        dimensions: FACE_EMBEDDING_DIMENSIONS,
        faces: read.faces.map((f) => ({ ...f.answer, embedding: f.embedding })),
        image: read.image,
        model: FACE_MODEL_ID,
      };
    },
  };
};
