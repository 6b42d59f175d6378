/**
 * tools/face-embed: one descriptor per face of a photo (the local model's faceres vector: 1024 numbers, unit length,
 * so a dot product is the cosine similarity), with box, score, age and gender. A photo without a face is refused
 * (422, nothing charged): there is nothing to sell. Nothing is stored.
 */
import { createFaceReader, noFace } from './face/faces.js';
import { FACE_MODEL_ID } from './face/model.js';
import type { ToolFactory } from './types.js';

export const faceEmbed: ToolFactory = (deps) => {
  const faces = createFaceReader(deps);
  return {
    async run(input, call) {
      const read = await faces.read(input, call);
      if (read.faces.length === 0)
        throw noFace(typeof input.image_base64 === 'string' ? 'image_base64' : 'image_url');
      return {
        count: read.faces.length,
        dimensions: read.faces[0]?.embedding.length ?? 0,
        faces: read.faces.map((f) => ({ ...f.answer, embedding: f.embedding })),
        image: read.image,
        model: FACE_MODEL_ID,
      };
    },
  };
};
