/**
 * tools/face-detect: the faces in one photo, found by the local face model: box (pixels of the photo as sent),
 * detection score, estimated age and gender. No embeddings. A photo without a face is an answer (count 0), not an
 * error. Nothing is stored: a kasir media object given as input is deleted once read.
 */
import { createFaceReader } from './face/faces.js';
import { FACE_MODEL_ID } from './face/model.js';
import type { ToolFactory } from './types.js';

export const faceDetect: ToolFactory = (deps) => {
  const faces = createFaceReader(deps);
  return {
    preflight: () => faces.admit(),
    async run(input, call) {
      const read = await faces.read(input, call);
      return {
        count: read.faces.length,
        faces: read.faces.map((f) => f.answer),
        image: read.image,
        model: FACE_MODEL_ID,
      };
    },
  };
};
